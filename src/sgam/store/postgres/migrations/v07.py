"""PostgreSQL schema, version 7."""

# The functions the application role may call, hardened. ``sgam_claim_jobs`` caps the
# lease (an hour past the caller's clock, which may not run ahead of the server's by
# more than five minutes) and the batch (100), and returns only what a worker needs (no
# other tenant's error text or lease owners). ``sgam_vector_index`` creates indexes only
# for the dimensions the owner allowed (``vector_dimensions``, filled by ``sgam migrate
# --vector-dims``); other dimensions are stored and searched exactly.

SCRIPT = """
    CREATE TABLE vector_dimensions (
        dims integer PRIMARY KEY CHECK (dims BETWEEN 1 AND 2000)
    );
    INSERT INTO vector_dimensions (dims)
        SELECT DISTINCT substring(c.relname FROM '_hnsw_([0-9]+)$')::integer FROM pg_class c
        WHERE c.relnamespace = to_regnamespace(@SCHEMA_LITERAL@)
          AND c.relname ~ '^(episode|assertion)_vectors_hnsw_[0-9]+$'
        ON CONFLICT DO NOTHING;

    CREATE OR REPLACE FUNCTION sgam_vector_index(p_dims integer) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        vector_schema name;
        target text;
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM @SCHEMA@.vector_dimensions WHERE dims = p_dims)
           OR (to_regclass(format('@SCHEMA@.%I', 'episode_vectors_hnsw_' || p_dims)) IS NOT NULL
               AND to_regclass(format('@SCHEMA@.%I', 'assertion_vectors_hnsw_' || p_dims)) IS NOT NULL) THEN
            RETURN;  -- not allowed (searched exactly), or already there: no lock either way
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

    CREATE TEMPORARY TABLE claim_grantees ON COMMIT DROP AS
        SELECT DISTINCT grantee::text AS role FROM information_schema.role_routine_grants
        WHERE routine_schema = @SCHEMA_LITERAL@ AND routine_name = 'sgam_claim_jobs'
          AND privilege_type = 'EXECUTE' AND grantee::text <> current_user;
    DROP FUNCTION sgam_claim_jobs(text, timestamptz, timestamptz, integer, text);
    CREATE FUNCTION sgam_claim_jobs(p_owner text, p_now timestamptz, p_lease_until timestamptz,
                                    p_limit integer, p_tenant text)
    RETURNS TABLE (tenant text, episode_id text, enqueued_at timestamptz, attempts integer,
                   lease_expires timestamptz, seq bigint)
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        WITH clock AS (
            SELECT least(p_now, statement_timestamp() + interval '5 minutes') AS now
        )
        UPDATE @SCHEMA@.extraction_jobs j
           SET lease_owner = p_owner,
               lease_expires = least(p_lease_until, clock.now + interval '1 hour'),
               attempts = j.attempts + 1
          FROM clock
         WHERE (j.tenant, j.seq) IN (
            SELECT q.tenant, q.seq FROM @SCHEMA@.extraction_jobs q, clock
            WHERE q.status = 'queued' AND (q.lease_expires IS NULL OR q.lease_expires <= clock.now)
              AND (p_tenant IS NULL OR q.tenant = p_tenant)
            ORDER BY q.seq LIMIT greatest(least(p_limit, 100), 0) FOR UPDATE OF q SKIP LOCKED)
        RETURNING j.tenant, j.episode_id, j.enqueued_at, j.attempts, j.lease_expires, j.seq
    $$;
    REVOKE ALL ON FUNCTION sgam_claim_jobs(text, timestamptz, timestamptz, integer, text) FROM PUBLIC;
    DO $$
    DECLARE grantee text;
    BEGIN
        FOR grantee IN SELECT role FROM claim_grantees LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION @SCHEMA@.sgam_claim_jobs'
                           '(text, timestamptz, timestamptz, integer, text) TO %I', grantee);
        END LOOP;
    END $$;
    """
