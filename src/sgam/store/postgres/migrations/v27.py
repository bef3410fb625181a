"""PostgreSQL schema: a migration step's backfill, converted in batches that each commit."""

# As SQLite's version 18: ``backfills`` keeps, per step (``seq`` of ``ledger_changes``),
# the attributes it derives again (JSON), the last subject done (a rerun resumes after
# it), the counts, when it finished (NULL: reads of a subject after ``after_subject``
# convert on the fly), and a lone retype's type and map (``conversion``). Row-level security as every tenant table.
#
# ``sgam_point_reads`` (its body as in version 22 but for what follows) also answers the
# tenant's unfinished backfills, as part 6 rows (none for almost every tenant): every
# read begins with this function, so a read learns whether to convert on the fly without
# a statement of its own.

SCRIPT = """
    CREATE TABLE backfills (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        attributes text NOT NULL,
        after_subject text,
        subjects_done bigint NOT NULL DEFAULT 0,
        subjects_total bigint NOT NULL,
        batches_done bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        conversion text,
        PRIMARY KEY (tenant, seq)
    );

    CREATE OR REPLACE FUNCTION sgam_point_reads(
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
            SELECT 6::smallint, NULL::integer, b.seq, b.subjects_done, b.after_subject, b.attributes, b.conversion,
                   NULL::text, b.started_at, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
                   NULL::text, NULL::double precision, NULL::integer, b.subjects_total, NULL::text, NULL::text,
                   NULL::text, NULL::boolean, NULL::timestamptz, b.batches_done
            FROM @SCHEMA@.backfills b WHERE b.tenant = p_tenant AND b.finished_at IS NULL;
        RETURN QUERY
            SELECT 1::smallint, NULL::integer, NULL::bigint, NULL::bigint, c.subject, q.name, NULL::text,
                   NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
                   NULL::text, NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                   c.purpose, c.granted, c.changed_at, c.seq
            FROM unnest(p_consents) AS q(name)
            CROSS JOIN LATERAL (
                SELECT coalesce((SELECT r.subject FROM @SCHEMA@.subject_resolution r
                                 WHERE r.tenant = p_tenant AND r.name = q.name AND r.recorded_to IS NULL),
                                q.name) AS meant) AS m
            JOIN @SCHEMA@.consents c ON c.tenant = p_tenant AND (c.subject = m.meant OR c.subject IN (
                SELECT r.name FROM @SCHEMA@.subject_resolution r
                WHERE r.tenant = p_tenant AND r.recorded_to IS NULL AND r.subject = m.meant));
        FOR i IN 1 .. coalesce(array_length(p_subjects, 1), 0) LOOP
            IF p_subjects[i] IS NULL THEN
                IF p_attributes[i] IS NOT NULL THEN
                    RETURN QUERY
                        SELECT 4::smallint, i, NULL::bigint, NULL::bigint, r.attribute, NULL::text, NULL::text,
                               NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
                               NULL::timestamptz, NULL::text, NULL::double precision, NULL::integer, NULL::bigint,
                               NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                        FROM @SCHEMA@.attribute_resolution r
                        WHERE r.tenant = p_tenant AND r.name = p_attributes[i]
                          AND CASE WHEN p_knowns[i] IS NULL THEN r.recorded_to IS NULL
                                   ELSE r.recorded_from <= p_knowns[i]
                                        AND (r.recorded_to IS NULL OR r.recorded_to > p_knowns[i]) END;
                END IF;
                CONTINUE;
            END IF;
            IF p_attributes[i] IS NULL THEN
                RETURN QUERY
                    SELECT 3::smallint, i, NULL::bigint, NULL::bigint, r.subject, NULL::text, NULL::text,
                           NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz,
                           NULL::text, NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                           NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint
                    FROM @SCHEMA@.subject_resolution r
                    WHERE r.tenant = p_tenant AND r.name = p_subjects[i]
                      AND CASE WHEN p_knowns[i] IS NULL THEN r.recorded_to IS NULL
                               ELSE r.recorded_from <= p_knowns[i]
                                    AND (r.recorded_to IS NULL OR r.recorded_to > p_knowns[i]) END;
            ELSIF p_knowns[i] IS NULL THEN
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
"""
