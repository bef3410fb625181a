"""PostgreSQL schema, version 6."""

# Keyword search of episodes through an owner-run function. Row-level security lets the
# planner use a condition as an index condition ahead of the policy only if it is
# leakproof, and ``tsvector @@ tsquery`` is not: under the app role every full- text
# match (and each term's document frequency) tested every episode of the tenant, so
# search cost O(episodes). The owner reads episodes under its own policy (search_owner,
# FOR SELECT, in rls_statements), and this function filters by the caller's
# ``sgam.tenant`` itself, so the GIN index serves the match; no tenant set, no rows.
# Ranking as before: per-term IDF in the tenant times ts_rank (BM25-shaped), weights D,
# C, B, A = 0.1, 0.2, 0.3, 1.0 (a speaker match counts 0.3 of a text match).

SCRIPT = """
    CREATE FUNCTION sgam_keyword_episodes(
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
        SELECT count(*) INTO v_docs FROM @SCHEMA@.episodes WHERE tenant = v_tenant;
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
    REVOKE ALL ON FUNCTION
        sgam_keyword_episodes(text[], integer, timestamptz, timestamptz, text, text, text, text, timestamptz)
        FROM PUBLIC;
    """
