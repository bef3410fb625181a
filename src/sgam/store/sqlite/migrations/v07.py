"""SQLite schema, version 7."""

# The network surfaces: API keys (only a digest of the secret) and the responses of POST
# requests made with an Idempotency-Key, so a retried request does not act twice.

SCRIPT = """
    CREATE TABLE api_keys (
        tenant TEXT NOT NULL CHECK (tenant <> ''),
        key_id TEXT NOT NULL,
        scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
        digest TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        PRIMARY KEY (tenant, key_id)
    );

    CREATE TABLE idempotency_keys (
        tenant TEXT NOT NULL CHECK (tenant <> ''),
        idempotency_key TEXT NOT NULL,
        request_digest TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        status INTEGER,
        response TEXT,
        PRIMARY KEY (tenant, idempotency_key)
    );
    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant, created_at);
    """
