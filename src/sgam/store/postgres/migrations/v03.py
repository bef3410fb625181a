"""PostgreSQL schema, version 3."""

# Search. Full text on episodes and on ledger keys (tsvector + GIN), vectors of episodes
# and assertions (pgvector) that die with their rows by ON DELETE CASCADE.

SCRIPT = """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE EXTENSION IF NOT EXISTS btree_gin;

    -- OR of any number of tsqueries, each built by plainto_tsquery from one bound term.
    CREATE AGGREGATE sgam_tsquery_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);

    -- Speaker weighted B, text A: ts_rank_cd's weights make a speaker match count less.
    ALTER TABLE episodes ADD COLUMN search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(speaker, '')), 'B')
        || setweight(to_tsvector('english', text), 'A')
    ) STORED;
    CREATE INDEX episodes_search ON episodes USING gin (tenant, search);

    -- One row per key, not per version: the ledger writes many versions of few keys, and
    -- an index entry per version would make every write pay for full-text indexing.
    CREATE TABLE ledger_keys (
        tenant text NOT NULL CHECK (tenant <> ''),
        key_id bigint GENERATED ALWAYS AS IDENTITY,
        subject text NOT NULL,
        attribute text NOT NULL,
        search tsvector GENERATED ALWAYS AS (
            to_tsvector('english', replace(subject, '_', ' ') || ' ' || replace(attribute, '_', ' '))
        ) STORED,
        PRIMARY KEY (tenant, key_id),
        UNIQUE (tenant, subject, attribute)
    );
    CREATE INDEX ledger_keys_search ON ledger_keys USING gin (tenant, search);
    INSERT INTO ledger_keys (tenant, subject, attribute)
        SELECT DISTINCT tenant, subject, attribute FROM operations;

    -- Statement-level with transition tables: a batch of a thousand operations is one
    -- INSERT here, not a thousand. They run as the caller, so RLS scopes them too.
    CREATE FUNCTION sgam_ledger_keys_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO ledger_keys (tenant, subject, attribute)
            SELECT DISTINCT tenant, subject, attribute FROM added
            ON CONFLICT (tenant, subject, attribute) DO NOTHING;
        RETURN NULL;
    END $$;
    CREATE TRIGGER operations_key_insert AFTER INSERT ON operations
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sgam_ledger_keys_added();

    CREATE FUNCTION sgam_ledger_keys_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM ledger_keys k
        USING (SELECT DISTINCT tenant, subject, attribute FROM removed) r
        WHERE k.tenant = r.tenant AND k.subject = r.subject AND k.attribute = r.attribute
          AND NOT EXISTS (SELECT 1 FROM operations o WHERE o.tenant = r.tenant
                          AND o.subject = r.subject AND o.attribute = r.attribute);
        RETURN NULL;
    END $$;
    CREATE TRIGGER operations_key_delete AFTER DELETE ON operations
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sgam_ledger_keys_removed();

    -- Vectors of any dimension in one column; ``dims`` selects the partial HNSW index of
    -- that dimension (sgam_vector_index, created the first time a dimension is stored).
    CREATE TABLE episode_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        model text NOT NULL,
        seq bigint NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        PRIMARY KEY (tenant, episode_id, model),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id)
            ON DELETE CASCADE ON UPDATE CASCADE
    );
    CREATE INDEX episode_vectors_by_model ON episode_vectors (tenant, model, dims);

    CREATE TABLE assertion_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        row_id bigint NOT NULL,
        model text NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        PRIMARY KEY (tenant, row_id, model),
        FOREIGN KEY (tenant, row_id) REFERENCES assertions (tenant, row_id) ON DELETE CASCADE
    );
    CREATE INDEX assertion_vectors_by_model ON assertion_vectors (tenant, model, dims);

    -- The app role owns no table, so it cannot create an index: this owner-run function
    -- creates the HNSW index of one dimension on both vector tables, once. pgvector's
    -- HNSW takes at most 2000 dimensions; larger vectors are searched exactly.
    CREATE FUNCTION sgam_vector_index(p_dims integer) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        vector_schema name;
        target text;
    BEGIN
        IF p_dims < 1 OR p_dims > 2000
           OR (to_regclass(format('@SCHEMA@.%I', 'episode_vectors_hnsw_' || p_dims)) IS NOT NULL
               AND to_regclass(format('@SCHEMA@.%I', 'assertion_vectors_hnsw_' || p_dims)) IS NOT NULL) THEN
            RETURN;  -- the usual case: one catalog lookup, no lock
        END IF;
        PERFORM pg_advisory_xact_lock(1399283053, p_dims);
        SELECT n.nspname INTO vector_schema FROM pg_extension x
            JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'vector';
        FOREACH target IN ARRAY ARRAY['episode_vectors', 'assertion_vectors'] LOOP
            EXECUTE format(
                'CREATE INDEX IF NOT EXISTS %I ON @SCHEMA@.%I USING hnsw '
                '((embedding::%I.vector(%s)) %I.vector_cosine_ops) WHERE dims = %s',
                target || '_hnsw_' || p_dims, target, vector_schema, p_dims, vector_schema, p_dims);
        END LOOP;
    END $$;
    REVOKE ALL ON FUNCTION sgam_vector_index(integer) FROM PUBLIC;
    """
