"""PostgreSQL schema, version 16."""

# A narrow first pass for exact vector search in large tenants. Without an HNSW index the
# vector channel scanned every episode vector of the tenant, 1 KB per row at 256
# dimensions: 5-6 ms at 10k episodes but 130-260 ms at 100k, where the rows no longer
# fit the caches and the scan pushed the episodes the search reads next out of shared
# buffers. episode_vector_heads keeps, per vector of at least 64 dimensions, the first
# three eighths of its unit-length copy as a halfvec (96 dimensions, 192 bytes, for 256),
# with the episode's filter columns, in rows a quarter the width. From 20,000 episodes in
# a tenant the search ranks those heads by inner product, keeps the best candidates and
# ranks them exactly (store/postgres/search.py); below that, or where the dimension has
# an HNSW index, it searches as before. Rows follow their vector through statement-level
# triggers on insert, update (re-embedding, or the cascade of a renamed episode) and
# delete (erasure cascades from episodes to vectors). No foreign key: its check would
# lock every vector row it names, which cut ingest to a fifth.

SCRIPT = """
    CREATE TABLE episode_vector_heads (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        model text NOT NULL,
        seq bigint NOT NULL,
        dims integer NOT NULL,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL,
        session text,
        speaker text,
        head halfvec NOT NULL,
        PRIMARY KEY (tenant, episode_id, model)
    );
    CREATE INDEX episode_vector_heads_by_model ON episode_vector_heads (tenant, model, dims);

    -- Runs as the caller, so RLS scopes it like the statement that fired it.
    CREATE FUNCTION sgam_episode_vector_heads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                   subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec
            FROM changed WHERE dims >= 64
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
        RETURN NULL;
    END $$;
    CREATE FUNCTION sgam_episode_vector_heads_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM episode_vector_heads h USING gone g
            WHERE h.tenant = g.tenant AND h.episode_id = g.episode_id AND h.model = g.model
              AND NOT EXISTS (SELECT 1 FROM changed c WHERE c.tenant = g.tenant AND c.episode_id = g.episode_id
                              AND c.model = g.model AND c.dims >= 64);
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                   subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec
            FROM changed WHERE dims >= 64
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
        RETURN NULL;
    END $$;
    CREATE FUNCTION sgam_episode_vector_heads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM episode_vector_heads h USING gone g
            WHERE h.tenant = g.tenant AND h.episode_id = g.episode_id AND h.model = g.model;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episode_vectors_heads_insert AFTER INSERT ON episode_vectors
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads();
    CREATE TRIGGER episode_vectors_heads_update AFTER UPDATE ON episode_vectors
        REFERENCING OLD TABLE AS gone NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads_updated();
    CREATE TRIGGER episode_vectors_heads_delete AFTER DELETE ON episode_vectors
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads_deleted();

    INSERT INTO episode_vector_heads (tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session,
                                      speaker, head)
        SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
               subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec
        FROM episode_vectors WHERE dims >= 64;
    """
