"""SQLite schema, version 11."""

# Idempotent requests act once and their stored responses obey erasure and consent:
# - ``attempt`` names the attempt holding a reservation: a retry takes over an abandoned
#   reservation only by replacing the attempt it read, so two retries cannot both act;
# - ``acted_at`` is set in the same transaction as every write made for the attempt (and
#   that write rolls back if the attempt no longer holds the key), so a reservation that
#   outlives a crash says whether its request took effect;
# - ``erased_at``: an erasure committed while the request was in flight, so its response
#   is stored redacted;
# - ``idempotency_mentions``: keyed digests of every name a stored response or its request
#   carries, so erasing a subject or an episode finds the responses quoting it exactly.

SCRIPT = """
    ALTER TABLE idempotency_keys ADD COLUMN attempt TEXT NOT NULL DEFAULT '';
    ALTER TABLE idempotency_keys ADD COLUMN acted_at INTEGER;
    ALTER TABLE idempotency_keys ADD COLUMN erased_at INTEGER;

    CREATE TABLE idempotency_mentions (
        tenant TEXT NOT NULL,
        mention TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        PRIMARY KEY (tenant, mention, idempotency_key),
        FOREIGN KEY (tenant, idempotency_key) REFERENCES idempotency_keys (tenant, idempotency_key)
            ON DELETE CASCADE
    );
    CREATE INDEX idempotency_mentions_by_key ON idempotency_mentions (tenant, idempotency_key);
    """
