"""PostgreSQL schema, version 17."""

# A point read in one statement. A read sent the tenant's set_config, the deadline probe,
# the subject's consent statements and the key's version as four statements of a pipeline
# and its Sync; the client's work per statement (the driver flushing and polling the
# socket for each) was most of a read's time. Two functions, run as the caller (SECURITY
# INVOKER: row-level security binds them as it binds the caller's own statements):
#
# - sgam_lifecycle_due(tenant, now): whether anything of the tenant is past its deadline,
#   the probe every read and write asks first; PostgreSQL's one definition of it, which
#   answers as the portable statement in store/_sql/lifecycle.py (the tests compare them).
# - sgam_point_reads(tenant, now, consent subjects, keys as parallel arrays): sets the
#   transaction-local tenant, asks the probe and, only when nothing is due, returns the
#   consent statements of the subjects named and, per key (an item with a null subject is
#   skipped), the current version, or the version visible at a transaction time, starting
#   last at or before an instant and the one starting first after it: the rows of the
#   reader's own point lookup. Called alone on an autocommit connection it is a
#   transaction of its own, so the tenant it sets ends with it; called first in a
#   pipeline, with no keys, it opens a read (tenant and probe in one statement) and the
#   tenant holds until the pipeline's Sync. A due deadline is one row with part 0 and
#   nothing else: the caller settles it in a write, then reads again.
#
# Tables are named with their schema; no SET clause pins the search path (it would push
# and pop a setting on every call), and operators resolve in pg_catalog first.

SCRIPT = """
    CREATE FUNCTION sgam_lifecycle_due(p_tenant text, p_now timestamptz) RETURNS boolean
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
    BEGIN
        RETURN EXISTS (SELECT 1 FROM @SCHEMA@.operations o
                       WHERE o.tenant = p_tenant AND o.expires_at IS NOT NULL AND o.expires_at <= p_now)
            OR EXISTS (SELECT 1 FROM @SCHEMA@.store_items s
                       WHERE s.tenant = p_tenant AND s.expires_at IS NOT NULL AND s.expires_at <= p_now)
            OR EXISTS (
                SELECT 1 FROM @SCHEMA@.retention_classes c
                WHERE c.tenant = p_tenant AND c.ttl IS NOT NULL
                  AND (p_now - c.ttl * interval '1 microsecond' >= CASE WHEN c.on_expiry = 'erase'
                          THEN (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = c.tenant AND e.retention = c.name)
                          ELSE (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = c.tenant AND e.retention = c.name AND e.lost_at IS NULL) END
                       OR p_now - c.ttl * interval '1 microsecond' >= (
                          SELECT min(d.kept_since) FROM @SCHEMA@.documents d
                          WHERE d.tenant = c.tenant AND d.retention = c.name)));
    END $$;

    CREATE FUNCTION sgam_point_reads(
        p_tenant text, p_now timestamptz, p_consents text[],
        p_subjects text[], p_attributes text[], p_ats timestamptz[], p_knowns timestamptz[]
    ) RETURNS TABLE (
        part smallint, item integer,
        row_id bigint, assertion_id bigint, subject text, attribute text, value text, memory_type text,
        valid_from timestamptz, valid_to timestamptz, recorded_from timestamptz, recorded_to timestamptz,
        source text, confidence double precision, schema_version integer, supersedes bigint, origin text,
        closed_by text,
        purpose text, granted boolean, changed_at timestamptz, seq bigint
    ) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
    #variable_conflict use_column
    DECLARE
        i integer;
    BEGIN
        PERFORM set_config('sgam.tenant', p_tenant, true);
        IF @SCHEMA@.sgam_lifecycle_due(p_tenant, p_now) THEN
            part := 0;
            RETURN NEXT;
            RETURN;
        END IF;
        RETURN QUERY
            SELECT 1::smallint, NULL::integer, NULL::bigint, NULL::bigint, c.subject, NULL::text, NULL::text,
                   NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
                   NULL::text, NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                   c.purpose, c.granted, c.changed_at, c.seq
            FROM @SCHEMA@.consents c WHERE c.tenant = p_tenant AND c.subject = ANY (p_consents);
        FOR i IN 1 .. coalesce(array_length(p_subjects, 1), 0) LOOP
            CONTINUE WHEN p_subjects[i] IS NULL;
            IF p_knowns[i] IS NULL THEN
                RETURN QUERY
                    SELECT * FROM (
                        SELECT 2::smallint, i, a.row_id, a.assertion_id, a.subject, a.attribute, a.value,
                               a.memory_type, a.valid_from, a.valid_to, a.recorded_from, a.recorded_to, a.source,
                               a.confidence, a.schema_version, a.supersedes, a.origin, a.closed_by,
                               NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                        FROM @SCHEMA@.assertions a
                        WHERE a.tenant = p_tenant AND a.subject = p_subjects[i] AND a.attribute = p_attributes[i]
                          AND a.recorded_to IS NULL AND a.valid_from <= p_ats[i]
                        ORDER BY a.valid_from DESC LIMIT 1) AS f
                    UNION ALL
                    SELECT * FROM (
                        SELECT 2::smallint, i, a.row_id, a.assertion_id, a.subject, a.attribute, a.value,
                               a.memory_type, a.valid_from, a.valid_to, a.recorded_from, a.recorded_to, a.source,
                               a.confidence, a.schema_version, a.supersedes, a.origin, a.closed_by,
                               NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                        FROM @SCHEMA@.assertions a
                        WHERE a.tenant = p_tenant AND a.subject = p_subjects[i] AND a.attribute = p_attributes[i]
                          AND a.recorded_to IS NULL AND a.valid_from > p_ats[i]
                        ORDER BY a.valid_from LIMIT 1) AS c;
            ELSE
                RETURN QUERY
                    SELECT * FROM (
                        SELECT 2::smallint, i, a.row_id, a.assertion_id, a.subject, a.attribute, a.value,
                               a.memory_type, a.valid_from, a.valid_to, a.recorded_from, a.recorded_to, a.source,
                               a.confidence, a.schema_version, a.supersedes, a.origin, a.closed_by,
                               NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                        FROM @SCHEMA@.assertions a
                        WHERE a.tenant = p_tenant AND a.subject = p_subjects[i] AND a.attribute = p_attributes[i]
                          AND a.recorded_from <= p_knowns[i]
                          AND (a.recorded_to IS NULL OR a.recorded_to > p_knowns[i])
                          AND a.valid_from <= p_ats[i]
                        ORDER BY a.valid_from DESC LIMIT 1) AS f
                    UNION ALL
                    SELECT * FROM (
                        SELECT 2::smallint, i, a.row_id, a.assertion_id, a.subject, a.attribute, a.value,
                               a.memory_type, a.valid_from, a.valid_to, a.recorded_from, a.recorded_to, a.source,
                               a.confidence, a.schema_version, a.supersedes, a.origin, a.closed_by,
                               NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                        FROM @SCHEMA@.assertions a
                        WHERE a.tenant = p_tenant AND a.subject = p_subjects[i] AND a.attribute = p_attributes[i]
                          AND a.recorded_from <= p_knowns[i]
                          AND (a.recorded_to IS NULL OR a.recorded_to > p_knowns[i])
                          AND a.valid_from > p_ats[i]
                        ORDER BY a.valid_from LIMIT 1) AS c;
            END IF;
        END LOOP;
    END $$;

    REVOKE ALL ON FUNCTION sgam_lifecycle_due(text, timestamptz) FROM PUBLIC;
    REVOKE ALL ON FUNCTION sgam_point_reads(text, timestamptz, text[], text[], text[], timestamptz[], timestamptz[])
        FROM PUBLIC;
    """
