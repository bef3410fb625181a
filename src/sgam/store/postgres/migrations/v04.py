"""PostgreSQL schema, version 4."""

# Document memory — a tenant's files under /memories. ``documents`` holds each
# document's current state (a deleted one stays, not live, so it can be restored);
# ``document_revisions`` keeps every revision with who wrote it; the chunks of live
# documents carry a generated tsvector (GIN) and their vectors (pgvector, searched
# exactly: a tenant's documents are few). Erasure deletes the document row and every
# revision, chunk and vector goes with it by ON DELETE CASCADE.

SCRIPT = """
    CREATE TABLE documents (
        tenant text NOT NULL CHECK (tenant <> ''),
        doc_id bigint GENERATED ALWAYS AS IDENTITY,
        path text NOT NULL,
        live boolean NOT NULL,
        revision integer NOT NULL CHECK (revision >= 1),
        content text,
        size integer NOT NULL,
        retention text NOT NULL,
        source text,
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, doc_id),
        CHECK (live = (content IS NOT NULL))
    );
    CREATE UNIQUE INDEX documents_live_path ON documents (tenant, path) WHERE live;
    CREATE INDEX documents_by_path ON documents (tenant, path text_pattern_ops, updated_at);

    CREATE TABLE document_revisions (
        tenant text NOT NULL CHECK (tenant <> ''),
        doc_id bigint NOT NULL,
        revision integer NOT NULL,
        path text NOT NULL,
        op text NOT NULL,
        content text,
        author text,
        episode text,
        call_id text,
        recorded_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, doc_id, revision),
        FOREIGN KEY (tenant, doc_id) REFERENCES documents (tenant, doc_id) ON DELETE CASCADE
    );
    CREATE INDEX document_revisions_by_path ON document_revisions (tenant, path);

    CREATE TABLE document_chunks (
        tenant text NOT NULL CHECK (tenant <> ''),
        chunk_id bigint GENERATED ALWAYS AS IDENTITY,
        doc_id bigint NOT NULL,
        revision integer NOT NULL,
        path text NOT NULL,
        start_line integer NOT NULL,
        end_line integer NOT NULL,
        text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', translate(path, '/._-', '    ')), 'B')
            || setweight(to_tsvector('english', text), 'A')
        ) STORED,
        PRIMARY KEY (tenant, chunk_id),
        FOREIGN KEY (tenant, doc_id) REFERENCES documents (tenant, doc_id) ON DELETE CASCADE
    );
    CREATE INDEX document_chunks_by_doc ON document_chunks (tenant, doc_id);
    CREATE INDEX document_chunks_search ON document_chunks USING gin (tenant, search);

    CREATE TABLE document_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        chunk_id bigint NOT NULL,
        model text NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        PRIMARY KEY (tenant, chunk_id, model),
        FOREIGN KEY (tenant, chunk_id) REFERENCES document_chunks (tenant, chunk_id) ON DELETE CASCADE
    );
    CREATE INDEX document_vectors_by_model ON document_vectors (tenant, model, dims);
    """
