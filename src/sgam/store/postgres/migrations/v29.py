"""PostgreSQL schema: the common one-fact write in one call."""

# sgam_write_one applies the common write, a write after its key's last start (it appends
# a version, or corroborates the one holding), in one statement the client sends with the
# Sync that commits it: one round trip where the unit of work took two. Every other case
# is handed back untouched to the planner in Python, which stays the one statement of the
# rules; this function decides only what the planner would decide for a key whose every
# current version starts before the write's instant:
#
#   holder = the current version starting last (none: the key is new)
#   holder holds at the instant, same value      -> corroborated (the operation alone)
#   holder holds at the instant, another value   -> superseded: a version from the instant
#                                                   to the holder's stored end, naming it
#   no holder, or it ended before the instant    -> created: a version from the instant on
#
# It runs as the caller (SECURITY INVOKER, so row-level security binds it as it binds the
# caller's statements). In order: the tenant for the rest of the transaction (SET LOCAL,
# not set_config), the subject's advisory lock (the same key the unit of work takes), then
# it hands back, having written nothing, with the reason in ``outcome``:
#
#   due        something of the tenant is past its deadline (settled by a unit of work)
#   schema     the tenant's schema version is not the one the client validated against
#   source     the source episode is missing or has lost its text
#   names      the subject has consent statements, or is an alias or has aliases
#   backfill   a migration step of the tenant is still converting its stored versions
#              (a write converts its key first: the module v26)
#   planner    the key has a current version starting at or after the instant
#
# or writes and answers ``written`` with the sequence number, transaction time (the
# client's instant, never before the key's last change), effect and, when it added one,
# the version's row id, end and the version it supersedes. Each value is computed into a
# variable first: the inserts are plain VALUES rows, with no subquery inside them.
# The guards are the tables' own: the unique current start, the trigger refusing a
# current version that runs past the next one's start, the foreign key to the source.

SCRIPT = """
    CREATE FUNCTION sgam_write_one(
        p_tenant text, p_now timestamptz, p_lock bigint, p_version integer,
        p_subject text, p_attribute text, p_valid_at timestamptz, p_value text, p_source text,
        p_memory_type text, p_confidence double precision, p_expires_at timestamptz, p_display text
    ) RETURNS TABLE (
        outcome text, seq bigint, recorded_at timestamptz, effect text, row_id bigint,
        valid_to timestamptz, supersedes bigint
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
        stored integer;
        held boolean;
        holder_start timestamptz;
        holder_end timestamptz;
        holder_value text;
        holder_id bigint;
        last_at timestamptz;
    BEGIN
        EXECUTE 'SET LOCAL sgam.tenant = ' || quote_literal(p_tenant);
        PERFORM pg_advisory_xact_lock(p_lock);
        IF @SCHEMA@.sgam_lifecycle_due(p_tenant, p_now) THEN
            outcome := 'due';
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT t.version INTO stored FROM @SCHEMA@.tenant_schema t WHERE t.tenant = p_tenant;
        IF coalesce(stored, 0) <> p_version THEN
            outcome := 'schema';
            RETURN NEXT;
            RETURN;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM @SCHEMA@.episodes e
                       WHERE e.tenant = p_tenant AND e.episode_id = p_source AND e.lost_at IS NULL) THEN
            outcome := 'source';
            RETURN NEXT;
            RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM @SCHEMA@.consents c WHERE c.tenant = p_tenant AND c.subject = p_subject)
           OR EXISTS (SELECT 1 FROM @SCHEMA@.subject_resolution r
                      WHERE r.tenant = p_tenant AND r.name = p_subject AND r.recorded_to IS NULL)
           OR EXISTS (SELECT 1 FROM @SCHEMA@.subject_resolution r
                      WHERE r.tenant = p_tenant AND r.subject = p_subject AND r.recorded_to IS NULL) THEN
            outcome := 'names';
            RETURN NEXT;
            RETURN;
        END IF;
        IF EXISTS (SELECT 1 FROM @SCHEMA@.backfills b WHERE b.tenant = p_tenant AND b.finished_at IS NULL) THEN
            outcome := 'backfill';
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT a.valid_from, a.valid_to, a.value, a.assertion_id
        INTO holder_start, holder_end, holder_value, holder_id
        FROM @SCHEMA@.assertions a
        WHERE a.tenant = p_tenant AND a.subject = p_subject AND a.attribute = p_attribute
          AND a.recorded_to IS NULL
        ORDER BY a.valid_from DESC LIMIT 1;
        held := FOUND;
        IF held AND holder_start >= p_valid_at THEN
            outcome := 'planner';
            RETURN NEXT;
            RETURN;
        END IF;
        SELECT o.recorded_at INTO last_at FROM @SCHEMA@.operations o
        WHERE o.tenant = p_tenant AND o.subject = p_subject AND o.attribute = p_attribute
        ORDER BY o.seq DESC LIMIT 1;
        outcome := 'written';
        recorded_at := greatest(p_now, last_at);
        seq := nextval(pg_get_serial_sequence('@SCHEMA@.operations', 'seq'));
        INSERT INTO @SCHEMA@.operations (tenant, subject, attribute, kind, valid_at, value, source, recorded_at,
                                         memory_type, confidence, schema_version, expires_at, seq)
        VALUES (p_tenant, p_subject, p_attribute, 'write', p_valid_at, p_value, p_source, recorded_at,
                p_memory_type, p_confidence, p_version, p_expires_at, seq);
        IF p_display IS NOT NULL THEN
            INSERT INTO @SCHEMA@.subject_names (tenant, subject, display) VALUES (p_tenant, p_subject, p_display)
            ON CONFLICT DO NOTHING;
        END IF;
        held := held AND (holder_end IS NULL OR p_valid_at < holder_end);
        IF held AND holder_value = p_value THEN
            effect := 'corroborated';
            RETURN NEXT;
            RETURN;
        END IF;
        IF held THEN
            effect := 'superseded';
            valid_to := holder_end;
            supersedes := holder_id;
        ELSE
            effect := 'created';
        END IF;
        INSERT INTO @SCHEMA@.assertions (tenant, assertion_id, subject, attribute, value, memory_type, valid_from,
                                         valid_to, recorded_from, source, confidence, schema_version, supersedes,
                                         origin)
        VALUES (p_tenant, seq, p_subject, p_attribute, p_value, p_memory_type, p_valid_at, valid_to, recorded_at,
                p_source, p_confidence, p_version, supersedes, 'write')
        RETURNING row_id INTO row_id;
        RETURN NEXT;
    END $$;

    REVOKE ALL ON FUNCTION sgam_write_one(text, timestamptz, bigint, integer, text, text, timestamptz, text, text,
                                          text, double precision, timestamptz, text) FROM PUBLIC;
    """
