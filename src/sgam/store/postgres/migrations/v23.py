"""PostgreSQL schema, version 23."""

# Episode vectors searched in process, kept exact by a tally. The exact vector channel
# read every vector of a large tenant on every search (a heads pass over 100,000 rows,
# 60-120 ms), while SQLite keeps a tenant's vectors in process and ranks them in a few
# milliseconds. A process may now do the same on PostgreSQL (store/postgres/vectors.py),
# if it can tell, in the snapshot of the search, that its copy is the tenant's vectors:
# - ``episode_vector_counts``: per (tenant, model, dims), the vectors stored, the sum of
#   their episode keys, a count of every row inserted, deleted or rewritten (a counter
#   that only grows, so an equal total means nothing changed) and a count of rewrites
#   alone (an episode renamed or embedded again: its key kept, its row changed), in one of eight
#   slots per tenant chosen by the backend's process id (as ``episode_counts``), so that
#   concurrent writers of one tenant rarely wait for each other's slot;
# - statement-level triggers on ``episode_vectors`` keep it (transition tables: the rows
#   each statement changed, cascades of an erasure included), run as the caller, under
#   the tenant policy;
# - ``episode_vectors_by_seq``: a tenant's vectors of one model and dimension in key
#   order, so a process reads only the vectors appended since its copy, or its copy's
#   keys, without sorting the tenant.
# TRUNCATE of episode_vectors fires nothing: truncate episode_vector_counts with it (it
# is in TENANT_TABLES). Applies on top of version 21 as on later versions.

SCRIPT = """
    CREATE TABLE episode_vector_counts (
        tenant text NOT NULL CHECK (tenant <> ''),
        model text NOT NULL,
        dims integer NOT NULL,
        slot integer NOT NULL,
        vectors bigint NOT NULL,
        key_sum bigint NOT NULL,
        changes bigint NOT NULL,
        rewrites bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, model, dims, slot)
    );
    INSERT INTO episode_vector_counts (tenant, model, dims, slot, vectors, key_sum, changes)
        SELECT tenant, model, dims, 0, count(*), sum(seq), count(*) FROM episode_vectors
        GROUP BY tenant, model, dims;
    CREATE INDEX episode_vectors_by_seq ON episode_vectors (tenant, model, dims, seq);

    -- Runs as the caller, so RLS scopes it like the statement that fired it.
    CREATE FUNCTION sgam_episode_vectors_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes)
                SELECT tenant, model, dims, pg_backend_pid() % 8, count(*), sum(seq), count(*)
                FROM changed GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes)
                SELECT tenant, model, dims, pg_backend_pid() % 8, -count(*), -sum(seq), count(*)
                FROM gone GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes;
        ELSE
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes, rewrites)
                SELECT tenant, model, dims, pg_backend_pid() % 8, sum(n), sum(s), count(*), count(*)
                FROM (SELECT tenant, model, dims, -1 AS n, -seq AS s FROM gone
                      UNION ALL SELECT tenant, model, dims, 1, seq FROM changed) AS moved
                GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes,
                    rewrites = c.rewrites + excluded.rewrites;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episode_vectors_counted_insert AFTER INSERT ON episode_vectors
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();
    CREATE TRIGGER episode_vectors_counted_update AFTER UPDATE ON episode_vectors
        REFERENCING OLD TABLE AS gone NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();
    CREATE TRIGGER episode_vectors_counted_delete AFTER DELETE ON episode_vectors
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();
    """
