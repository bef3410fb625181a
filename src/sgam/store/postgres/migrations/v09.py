"""PostgreSQL schema, version 9."""

# The network surfaces: API keys (only a digest of the secret) and the responses of POST
# requests made with an Idempotency-Key, so a retried request does not act twice.

SCRIPT = """
    CREATE TABLE api_keys (
        tenant text NOT NULL CHECK (tenant <> ''),
        key_id text NOT NULL,
        scope text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
        digest text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        PRIMARY KEY (tenant, key_id)
    );

    CREATE TABLE idempotency_keys (
        tenant text NOT NULL CHECK (tenant <> ''),
        idempotency_key text NOT NULL,
        request_digest text NOT NULL,
        created_at timestamptz NOT NULL,
        status integer,
        response text,
        PRIMARY KEY (tenant, idempotency_key)
    );
    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant, created_at);
    """
