"""PostgreSQL schema, version 18."""

# A one-fact write's lookups in one statement. A write sent the tenant's set_config, the
# subject's advisory lock, six lookups (schema version, source episode, the key's last
# change, the versions around the new start, the subject's consent statements, the
# operation's sequence number) and the deadline probe as nine statements of its pipeline,
# and the driver's work per statement (flushing and polling the socket for each) was most
# of a write's client time. sgam_write_lookups, run as the caller (SECURITY INVOKER: row-
# level security binds it as it binds the caller's own statements), does them in that
# order: sets the transaction-local tenant, takes the locks (waiting, or only trying when
# the unit of work already holds others: then one row with part 9 and nothing else, and
# the unit re-runs holding every lock in order), then asks each lookup in a statement of
# its own, so that each sees what committed before the lock was granted (READ COMMITTED
# takes a snapshot per statement of a volatile function). The rows:
#
#   part 0: the head: due (null when p_now is null), schema version (null unless asked),
#           sequence number, the key's last change
#   part 1: a current version starting at or before p_moment (at most two, latest first)
#   part 2: a current version starting after p_moment (at most two, earliest first)
#   part 3: the source episode (unless p_source is null)
#   part 4: a consent statement of the subject (unless p_consents is false)
#   part 9: a lock was held elsewhere; nothing else was asked
#
# Called in the write's own transaction (its pipeline): the tenant it sets holds until
# that transaction ends, as the caller's set_config would.

SCRIPT = """
    CREATE FUNCTION sgam_write_lookups(
        p_tenant text, p_now timestamptz, p_locks bigint[], p_wait boolean,
        p_subject text, p_attribute text, p_moment timestamptz, p_source text,
        p_version boolean, p_consents boolean
    ) RETURNS TABLE (
        part smallint, due boolean, version integer, seq bigint, last_at timestamptz,
        row_id bigint, assertion_id bigint, subject text, attribute text, value text, memory_type text,
        valid_from timestamptz, valid_to timestamptz, recorded_from timestamptz, recorded_to timestamptz,
        source text, confidence double precision, schema_version integer, supersedes bigint, origin text,
        closed_by text,
        e_tenant text, e_episode_id text, e_occurred_at timestamptz, e_recorded_at timestamptz, e_text text,
        e_speaker text, e_kind text, e_session text, e_metadata text, e_schema_version integer,
        e_retention text, e_lost_at timestamptz,
        c_purpose text, c_granted boolean, c_changed_at timestamptz, c_seq bigint
    ) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
    #variable_conflict use_column
    BEGIN
        PERFORM set_config('sgam.tenant', p_tenant, true);
        IF p_locks IS NOT NULL THEN
            IF p_wait THEN
                PERFORM pg_advisory_xact_lock(k) FROM unnest(p_locks) AS k ORDER BY k;
            ELSIF NOT (SELECT bool_and(pg_try_advisory_xact_lock(k)) FROM unnest(p_locks) AS k) THEN
                part := 9;
                RETURN NEXT;
                RETURN;
            END IF;
        END IF;
        part := 0;
        IF p_now IS NOT NULL THEN
            due := @SCHEMA@.sgam_lifecycle_due(p_tenant, p_now);
        END IF;
        IF p_version THEN
            version := coalesce((SELECT t.version FROM @SCHEMA@.tenant_schema t WHERE t.tenant = p_tenant), 0);
        END IF;
        seq := nextval(pg_get_serial_sequence('@SCHEMA@.operations', 'seq'));
        last_at := (SELECT o.recorded_at FROM @SCHEMA@.operations o
                    WHERE o.tenant = p_tenant AND o.subject = p_subject AND o.attribute = p_attribute
                    ORDER BY o.seq DESC LIMIT 1);
        RETURN NEXT;
        RETURN QUERY
            SELECT * FROM (
                SELECT 1::smallint, NULL::boolean, NULL::integer, NULL::bigint, NULL::timestamptz,
                       a.row_id, a.assertion_id, a.subject, a.attribute, a.value, a.memory_type, a.valid_from,
                       a.valid_to, a.recorded_from, a.recorded_to, a.source, a.confidence, a.schema_version,
                       a.supersedes, a.origin, a.closed_by,
                       NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::timestamptz,
                       NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                FROM @SCHEMA@.assertions a
                WHERE a.tenant = p_tenant AND a.subject = p_subject AND a.attribute = p_attribute
                  AND a.recorded_to IS NULL AND a.valid_from <= p_moment
                ORDER BY a.valid_from DESC LIMIT 2) AS f
            UNION ALL
            SELECT * FROM (
                SELECT 2::smallint, NULL::boolean, NULL::integer, NULL::bigint, NULL::timestamptz,
                       a.row_id, a.assertion_id, a.subject, a.attribute, a.value, a.memory_type, a.valid_from,
                       a.valid_to, a.recorded_from, a.recorded_to, a.source, a.confidence, a.schema_version,
                       a.supersedes, a.origin, a.closed_by,
                       NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::timestamptz,
                       NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                FROM @SCHEMA@.assertions a
                WHERE a.tenant = p_tenant AND a.subject = p_subject AND a.attribute = p_attribute
                  AND a.recorded_to IS NULL AND a.valid_from > p_moment
                ORDER BY a.valid_from LIMIT 2) AS c;
        IF p_source IS NOT NULL THEN
            RETURN QUERY
                SELECT 3::smallint, NULL::boolean, NULL::integer, NULL::bigint, NULL::timestamptz,
                       NULL::bigint, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
                       NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::text,
                       NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                       e.tenant, e.episode_id, e.occurred_at, e.recorded_at, e.text, e.speaker, e.kind, e.session,
                       e.metadata, e.schema_version, e.retention, e.lost_at,
                       NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                FROM @SCHEMA@.episodes e WHERE e.tenant = p_tenant AND e.episode_id = p_source;
        END IF;
        IF p_consents THEN
            RETURN QUERY
                SELECT 4::smallint, NULL::boolean, NULL::integer, NULL::bigint, NULL::timestamptz,
                       NULL::bigint, NULL::bigint, c.subject, NULL::text, NULL::text, NULL::text,
                       NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::text,
                       NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::timestamptz,
                       c.purpose, c.granted, c.changed_at, c.seq
                FROM @SCHEMA@.consents c WHERE c.tenant = p_tenant AND c.subject = p_subject;
        END IF;
    END $$;

    REVOKE ALL ON FUNCTION sgam_write_lookups(text, timestamptz, bigint[], boolean, text, text, timestamptz, text,
                                              boolean, boolean) FROM PUBLIC;
    """
