"""PostgreSQL schema, version 2."""

# The extraction path: what models replied, what policy decided, candidates held back
# (pending confirmation or buffered as weak signals) and the extraction job queue.

SCRIPT = """
    CREATE TABLE extractions (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        episode_id text NOT NULL,
        attempt integer NOT NULL,
        recorded_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('ok', 'failed')),
        error text,
        model text,
        raw_reply text,
        prompt_tokens integer,
        completion_tokens integer,
        latency_ms double precision,
        decisions text NOT NULL,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, episode_id, attempt)
    );

    CREATE TABLE held_candidates (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        episode_id text NOT NULL,
        hold text NOT NULL CHECK (hold IN ('pending', 'buffered')),
        status text NOT NULL CHECK (status IN ('open', 'confirmed', 'rejected', 'promoted')),
        subject text NOT NULL,
        attribute text NOT NULL,
        change text NOT NULL,
        value text NOT NULL,
        valid_from timestamptz NOT NULL,
        confidence double precision NOT NULL,
        stated boolean NOT NULL,
        evidence text NOT NULL,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, hold, episode_id, subject, attribute, value, valid_from)
    );
    CREATE INDEX held_by_key ON held_candidates (tenant, subject, attribute, value, status);
    CREATE INDEX held_by_status ON held_candidates (tenant, status, seq);

    CREATE TABLE extraction_jobs (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        episode_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'done', 'failed')),
        enqueued_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_expires timestamptz,
        last_error text,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX extraction_jobs_ready ON extraction_jobs (status, lease_expires, seq);

    -- One worker drains the queue of every tenant, but the application role sees one
    -- tenant at a time. These two functions run as the owner (SECURITY DEFINER), whose
    -- only cross-tenant policy is on this queue table (jobs_worker, below): they lease and
    -- count jobs and can do nothing else.
    CREATE FUNCTION sgam_claim_jobs(p_owner text, p_now timestamptz, p_lease_until timestamptz,
                                    p_limit integer, p_tenant text)
    RETURNS SETOF extraction_jobs LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        UPDATE @SCHEMA@.extraction_jobs SET lease_owner = p_owner, lease_expires = p_lease_until,
               attempts = attempts + 1
        WHERE (tenant, seq) IN (
            SELECT tenant, seq FROM @SCHEMA@.extraction_jobs
            WHERE status = 'queued' AND (lease_expires IS NULL OR lease_expires <= p_now)
              AND (p_tenant IS NULL OR tenant = p_tenant)
            ORDER BY seq LIMIT p_limit FOR UPDATE SKIP LOCKED)
        RETURNING *
    $$;

    CREATE FUNCTION sgam_count_jobs(p_now timestamptz, p_tenant text)
    RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT count(*) FROM @SCHEMA@.extraction_jobs
        WHERE status = 'queued' AND (lease_expires IS NULL OR lease_expires <= p_now)
          AND (p_tenant IS NULL OR tenant = p_tenant)
    $$;
    REVOKE ALL ON FUNCTION sgam_claim_jobs(text, timestamptz, timestamptz, integer, text) FROM PUBLIC;
    REVOKE ALL ON FUNCTION sgam_count_jobs(timestamptz, text) FROM PUBLIC;
    """
