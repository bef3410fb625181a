"""PostgreSQL schema, version 22."""

# Aliases: one subject under several names, as recorded operations.
# - ``subject_aliases``: each alias step as recorded (``name`` is another name of
#   ``subject`` from ``recorded_at`` until ``ended_at``, the unalias), in the tenant's
#   order of steps (``seq``, and ``ended_step`` for the unalias). ``after_seq`` places the step in the operation log:
#   operations with a greater ``seq`` were recorded after it (several steps may share
#   one instant). ``decided_by`` says whose decision it was, for the subject's page of names.
# - ``subject_resolution``: what each aliased name means, chains followed, over
#   transaction time; a name without a row means itself. Reads at any ``known_at`` resolve
#   a name with one index probe.
# Schema migrations are recorded steps too:
# - ``ledger_changes``: each rename, retype or cardinality change of an attribute as taken
#   (its fields and the shape before it in ``detail``), placed in the log like an alias;
# - ``attribute_resolution``: what an old attribute name means over transaction time, and
#   ``attribute_schemas.renamed_to`` what it means now (so a write's cached schema resolves it);
# - ``quarantine``: the operations a retype set aside (no conversion to the new type),
#   with their value then; erasure reaches them like any operation.
# Operations keep the name they were given; versions are stored under the subject the
# name meant when they were derived (``ledger/aliases.py`` re-derives a merged subject).
#
# The one-statement paths learn names too (their bodies as in versions 17 and 18 but for
# what follows):
# - ``sgam_point_reads`` answers a consent item with the statements about every name of
#   the subject the asked name means now (the asked name in ``attribute``), an item
#   without an attribute with what its subject name resolves to at its ``known_at``
#   (part 3), and one without a subject with what its attribute name resolves to (part 4);
# - ``sgam_write_lookups`` does the same for the operation's subject, and adds a part 5
#   row naming the subject it means when that is another (an alias).

SCRIPT = """
    CREATE TABLE subject_aliases (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        name text NOT NULL,
        subject text NOT NULL,
        recorded_at timestamptz NOT NULL,
        after_seq bigint NOT NULL,
        ended_step bigint,
        ended_at timestamptz,
        ended_after_seq bigint,
        decided_by text,
        PRIMARY KEY (tenant, seq),
        CHECK (name <> subject),
        CHECK ((ended_at IS NULL) = (ended_after_seq IS NULL) AND (ended_at IS NULL) = (ended_step IS NULL)),
        CHECK (ended_at IS NULL OR ended_at >= recorded_at)
    );
    CREATE INDEX subject_aliases_by_name ON subject_aliases (tenant, name);
    CREATE INDEX subject_aliases_by_subject ON subject_aliases (tenant, subject);
    CREATE TABLE subject_resolution (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        subject text NOT NULL,
        recorded_from timestamptz NOT NULL,
        recorded_to timestamptz,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> subject),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
    CREATE INDEX subject_resolution_by_subject ON subject_resolution (tenant, subject, recorded_from);
    CREATE TABLE ledger_changes (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        kind text NOT NULL CHECK (kind IN ('rename', 'retype', 'cardinality')),
        attribute text NOT NULL,
        detail text NOT NULL,
        recorded_at timestamptz NOT NULL,
        after_seq bigint NOT NULL,
        decided_by text,
        origin text,
        PRIMARY KEY (tenant, seq)
    );
    CREATE TABLE attribute_resolution (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        attribute text NOT NULL,
        recorded_from timestamptz NOT NULL,
        recorded_to timestamptz,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> attribute),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
    ALTER TABLE attribute_schemas ADD COLUMN renamed_to text;
    CREATE TABLE quarantine (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        subject text NOT NULL,
        attribute text NOT NULL,
        value text NOT NULL,
        since timestamptz NOT NULL,
        PRIMARY KEY (tenant, seq)
    );
    CREATE INDEX quarantine_by_attribute ON quarantine (tenant, attribute, subject);
    
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


    CREATE OR REPLACE FUNCTION sgam_write_lookups(
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
    DECLARE
        meant text;
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
        meant := coalesce((SELECT r.subject FROM @SCHEMA@.subject_resolution r
                           WHERE r.tenant = p_tenant AND r.name = p_subject AND r.recorded_to IS NULL), p_subject);
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
                FROM @SCHEMA@.consents c WHERE c.tenant = p_tenant AND (c.subject = meant OR c.subject IN (
                    SELECT r.name FROM @SCHEMA@.subject_resolution r
                    WHERE r.tenant = p_tenant AND r.recorded_to IS NULL AND r.subject = meant));
        END IF;
        IF meant <> p_subject THEN
            RETURN QUERY
                SELECT 5::smallint, NULL::boolean, NULL::integer, NULL::bigint, NULL::timestamptz,
                       NULL::bigint, NULL::bigint, meant, NULL::text, NULL::text, NULL::text,
                       NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::text,
                       NULL::double precision, NULL::integer, NULL::bigint, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::timestamptz, NULL::timestamptz, NULL::text, NULL::text,
                       NULL::text, NULL::text, NULL::text, NULL::integer, NULL::text, NULL::timestamptz,
                       NULL::text, NULL::boolean, NULL::timestamptz, NULL::bigint;
        END IF;
    END $$;

    """
