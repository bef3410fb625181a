"""SQLite schema, version 4."""

# Document memory — a tenant's files under /memories. ``documents`` holds each
# document's current state (a deleted one stays, not live, so it can be restored);
# ``document_revisions`` keeps every revision with who wrote it; the chunks of live
# documents are indexed for keyword (FTS5, kept exact by triggers) and vector search.
# Erasure deletes the document row and everything cascades from it.

SCRIPT = """
    CREATE TABLE documents (
        doc_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        path TEXT NOT NULL,
        live INTEGER NOT NULL CHECK (live IN (0, 1)),
        revision INTEGER NOT NULL CHECK (revision >= 1),
        content TEXT,
        size INTEGER NOT NULL,
        retention TEXT NOT NULL,
        source TEXT,
        reviewed_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        CHECK ((live = 1) = (content IS NOT NULL))
    );
    CREATE UNIQUE INDEX documents_live_path ON documents (tenant, path) WHERE live = 1;
    CREATE INDEX documents_by_path ON documents (tenant, path, updated_at);

    CREATE TABLE document_revisions (
        doc_id INTEGER NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        tenant TEXT NOT NULL,
        path TEXT NOT NULL,
        op TEXT NOT NULL,
        content TEXT,
        author TEXT,
        episode TEXT,
        call_id TEXT,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (doc_id, revision)
    ) WITHOUT ROWID;
    CREATE INDEX document_revisions_by_path ON document_revisions (tenant, path);

    CREATE TABLE document_chunks (
        chunk_id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
        tenant TEXT NOT NULL,
        revision INTEGER NOT NULL,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX document_chunks_by_doc ON document_chunks (doc_id);
    CREATE INDEX document_chunks_by_tenant ON document_chunks (tenant, chunk_id);

    CREATE VIRTUAL TABLE document_chunks_fts USING fts5(
        path, text, tokenize = 'porter unicode61 remove_diacritics 2'
    );

    CREATE TRIGGER document_chunks_search_insert AFTER INSERT ON document_chunks
    BEGIN
        INSERT INTO document_chunks_fts (rowid, path, text) VALUES (NEW.chunk_id, NEW.path, NEW.text);
    END;

    CREATE TRIGGER document_chunks_search_delete AFTER DELETE ON document_chunks
    BEGIN
        DELETE FROM document_chunks_fts WHERE rowid = OLD.chunk_id;
    END;

    CREATE TABLE document_vectors (
        chunk_id INTEGER NOT NULL REFERENCES document_chunks (chunk_id) ON DELETE CASCADE,
        tenant TEXT NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (chunk_id, model)
    ) WITHOUT ROWID;
    CREATE INDEX document_vectors_by_tenant ON document_vectors (tenant, model);
    """
