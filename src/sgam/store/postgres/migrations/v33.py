"""PostgreSQL schema: an API key's row in one statement, or checked inside a call."""

# The HTTP service reads the row of the request's API key on every request, so that a key
# revoked by any process fails on its very next request. As a read of its own that was a
# pipeline of four statements (the snapshot's BEGIN, the tenant's set_config, the select,
# the COMMIT), its Sync and a pooled connection: about as much client CPU as the fact read
# it guards. Now:
#
# - sgam_api_key(tenant, key_id, digest) is that read in one statement. With no digest
#   it answers the key's row, or none (the caller compares the secret's digest). With a
#   digest it raises SQLSTATE SGK01 unless the key is there, unrevoked, with that digest:
#   sent first in a unit of work's or a read's transaction, a refused key aborts it, so
#   nothing the request would write commits and nothing it would read is answered.
# - sgam_keyed_point_reads and sgam_keyed_write_one are sgam_point_reads and
#   sgam_write_one with that check first: a fact read or a common write and its key's
#   check in one statement, one round trip.
#
# Each runs as the caller (SECURITY INVOKER, so row-level security binds it as it binds
# the caller's own statements: another tenant's key is never found) and sets the tenant
# for its transaction (SET LOCAL, not set_config). No SET clause (it would push and pop a
# setting on every call): the key's select is one probe of the primary key.

SCRIPT = """
    CREATE FUNCTION sgam_api_key(p_tenant text, p_key_id text, p_digest text) RETURNS TABLE (
        tenant text, key_id text, scope text, digest text, created_at timestamptz, revoked_at timestamptz
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
        found @SCHEMA@.api_keys%ROWTYPE;
    BEGIN
        EXECUTE 'SET LOCAL sgam.tenant = ' || quote_literal(p_tenant);
        SELECT * INTO found FROM @SCHEMA@.api_keys k WHERE k.tenant = p_tenant AND k.key_id = p_key_id;
        IF p_digest IS NOT NULL
           AND (found.key_id IS NULL OR found.revoked_at IS NOT NULL OR found.digest <> p_digest) THEN
            RAISE EXCEPTION 'missing, malformed, unknown or revoked API key' USING ERRCODE = 'SGK01';
        END IF;
        IF found.key_id IS NOT NULL THEN
            RETURN QUERY SELECT found.tenant, found.key_id, found.scope, found.digest, found.created_at,
                                found.revoked_at;
        END IF;
    END $$;
    REVOKE ALL ON FUNCTION sgam_api_key(text, text, text) FROM PUBLIC;

    CREATE FUNCTION sgam_keyed_point_reads(
        p_key_id text, p_digest text, p_tenant text, p_now timestamptz, p_consents text[], p_subjects text[],
        p_attributes text[], p_ats timestamptz[], p_knowns timestamptz[]
    ) RETURNS TABLE (
        part smallint, item integer, row_id bigint, assertion_id bigint, subject text, attribute text,
        value text, memory_type text, valid_from timestamptz, valid_to timestamptz, recorded_from timestamptz,
        recorded_to timestamptz, source text, confidence double precision, schema_version integer,
        supersedes bigint, origin text, closed_by text, purpose text, granted boolean, changed_at timestamptz,
        seq bigint
    ) LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM @SCHEMA@.sgam_api_key(p_tenant, p_key_id, p_digest);
        RETURN QUERY SELECT * FROM @SCHEMA@.sgam_point_reads(
            p_tenant, p_now, p_consents, p_subjects, p_attributes, p_ats, p_knowns);
    END $$;
    REVOKE ALL ON FUNCTION sgam_keyed_point_reads(
        text, text, text, timestamptz, text[], text[], text[], timestamptz[], timestamptz[]) FROM PUBLIC;

    CREATE FUNCTION sgam_keyed_write_one(
        p_key_id text, p_digest text,
        p_tenant text, p_now timestamptz, p_lock bigint, p_version integer,
        p_subject text, p_attribute text, p_valid_at timestamptz, p_value text, p_source text,
        p_memory_type text, p_confidence double precision, p_expires_at timestamptz, p_display text
    ) RETURNS TABLE (
        outcome text, seq bigint, recorded_at timestamptz, effect text, row_id bigint,
        valid_to timestamptz, supersedes bigint
    ) LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM @SCHEMA@.sgam_api_key(p_tenant, p_key_id, p_digest);
        RETURN QUERY SELECT * FROM @SCHEMA@.sgam_write_one(
            p_tenant, p_now, p_lock, p_version, p_subject, p_attribute, p_valid_at, p_value, p_source,
            p_memory_type, p_confidence, p_expires_at, p_display);
    END $$;
    REVOKE ALL ON FUNCTION sgam_keyed_write_one(
        text, text, text, timestamptz, bigint, integer, text, text, timestamptz, text, text, text,
        double precision, timestamptz, text) FROM PUBLIC;
    """
