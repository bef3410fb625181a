"""PostgreSQL schema, version 15."""

# Keyword search reads each tenant's episode count from a tally instead of counting.
# BM25's inverse document frequency needs the number of episodes of the tenant, and
# sgam_keyword_episodes counted them on every search: an index scan of every episode of
# the tenant (1.7 ms at 10k episodes, tens of milliseconds at 100k, more on fresh tables
# whose visibility map is not yet set). Statement-level triggers on episodes add what each
# INSERT inserted and subtract what each DELETE deleted (transition tables: exactly the
# rows changed, idempotent repeats and cascades included), into one of eight slots per
# tenant chosen by the backend's process id, so that concurrent writers of one tenant
# rarely wait for each other's slot. The count is the sum of the tenant's slots, read in
# the statement's snapshot like the count(*) it replaces, so rankings are unchanged.
# The triggers run as the caller: row-level security scopes them like the statement that
# fired them. TRUNCATE of episodes fires nothing: truncate episode_counts with it (every
# tenant table is listed in TENANT_TABLES, which the tests and benchmarks truncate).

SCRIPT = """
    CREATE TABLE episode_counts (
        tenant text NOT NULL CHECK (tenant <> ''),
        slot integer NOT NULL,
        episodes bigint NOT NULL,
        PRIMARY KEY (tenant, slot)
    );
    INSERT INTO episode_counts (tenant, slot, episodes)
        SELECT tenant, 0, count(*) FROM episodes GROUP BY tenant;

    CREATE FUNCTION sgam_episodes_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO episode_counts AS c (tenant, slot, episodes)
                SELECT tenant, pg_backend_pid() % 8, count(*) FROM changed GROUP BY tenant
                ON CONFLICT (tenant, slot) DO UPDATE SET episodes = c.episodes + excluded.episodes;
        ELSE
            INSERT INTO episode_counts AS c (tenant, slot, episodes)
                SELECT tenant, pg_backend_pid() % 8, -count(*) FROM changed GROUP BY tenant
                ON CONFLICT (tenant, slot) DO UPDATE SET episodes = c.episodes + excluded.episodes;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episodes_counted_insert AFTER INSERT ON episodes
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episodes_counted();
    CREATE TRIGGER episodes_counted_delete AFTER DELETE ON episodes
        REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episodes_counted();

    CREATE OR REPLACE FUNCTION sgam_keyword_episodes(
        p_terms text[], p_limit integer, p_since timestamptz, p_until timestamptz,
        p_session text, p_speaker text, p_subject text, p_memory_type text, p_known_at timestamptz
    ) RETURNS SETOF bigint LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        v_tenant text := current_setting('sgam.tenant', true);
        v_docs bigint;
        v_df bigint;
        v_term text;
        v_query tsquery;
        v_queries tsquery[] := '{}';
        v_idf numeric[] := '{}';
        v_any tsquery;
    BEGIN
        IF v_tenant IS NULL OR v_tenant = '' OR p_terms IS NULL THEN
            RETURN;
        END IF;
        SELECT coalesce(sum(episodes), 0) INTO v_docs FROM @SCHEMA@.episode_counts WHERE tenant = v_tenant;
        FOREACH v_term IN ARRAY p_terms LOOP
            v_query := plainto_tsquery('english', v_term);
            SELECT count(*) INTO v_df FROM @SCHEMA@.episodes WHERE tenant = v_tenant AND search @@ v_query;
            IF v_df > 0 THEN
                v_queries := v_queries || v_query;
                v_idf := v_idf || ln(1 + (v_docs - v_df + 0.5) / (v_df + 0.5));
                v_any := CASE WHEN v_any IS NULL THEN v_query ELSE v_any || v_query END;
            END IF;
        END LOOP;
        IF v_any IS NULL THEN
            RETURN;
        END IF;
        RETURN QUERY
            SELECT e.seq FROM @SCHEMA@.episodes e
            WHERE e.tenant = v_tenant AND e.search @@ v_any
              AND (p_since IS NULL OR e.occurred_at >= p_since)
              AND (p_until IS NULL OR e.occurred_at <= p_until)
              AND (p_known_at IS NULL OR e.recorded_at <= p_known_at)
              AND (p_session IS NULL OR e.session = p_session)
              AND (p_speaker IS NULL OR e.speaker = p_speaker)
              AND (p_subject IS NULL OR EXISTS (SELECT 1 FROM @SCHEMA@.operations o WHERE o.tenant = e.tenant
                   AND o.source = e.episode_id AND o.subject = p_subject))
              AND (p_memory_type IS NULL OR EXISTS (SELECT 1 FROM @SCHEMA@.operations o WHERE o.tenant = e.tenant
                   AND o.source = e.episode_id AND o.memory_type = p_memory_type))
            ORDER BY (SELECT sum(w.idf * ts_rank('{0.1, 0.2, 0.3, 1.0}', e.search, w.q, 1))
                      FROM unnest(v_queries, v_idf) AS w(q, idf)) DESC, e.seq
            LIMIT p_limit;
    END $$;
    """
