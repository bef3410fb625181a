"""PostgreSQL schema: an API key's row in one statement."""

# The HTTP service reads the row of the request's API key on every request, so that a key
# revoked by any process fails on its very next request. As a read of its own that was a
# pipeline of four statements (the snapshot's BEGIN, the tenant's set_config, the select,
# the COMMIT) and its Sync: about as much client CPU as the fact read it guards.
# sgam_api_key is that read in one statement sent alone on the autocommit connection:
# it runs as the caller (SECURITY INVOKER, so row-level security binds it as it binds the
# caller's own statements: another tenant's key is never found), sets the tenant for its
# own transaction (SET LOCAL, not set_config), and answers the key's row, or no row.
# No SET clause (it would push and pop a setting on every call): the select is one probe
# of the primary key, whose plan is the same for any values.

SCRIPT = """
    CREATE FUNCTION sgam_api_key(p_tenant text, p_key_id text) RETURNS TABLE (
        tenant text, key_id text, scope text, digest text, created_at timestamptz, revoked_at timestamptz
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    BEGIN
        EXECUTE 'SET LOCAL sgam.tenant = ' || quote_literal(p_tenant);
        RETURN QUERY
            SELECT k.tenant, k.key_id, k.scope, k.digest, k.created_at, k.revoked_at
            FROM @SCHEMA@.api_keys k
            WHERE k.tenant = p_tenant AND k.key_id = p_key_id;
    END $$;
    REVOKE ALL ON FUNCTION sgam_api_key(text, text) FROM PUBLIC;
    """
