"""SQLite schema, version 11."""

# Idempotent requests act once, and their stored responses obey erasure:
# - ``attempt`` names the attempt holding a reservation: a retry takes over an abandoned
#   reservation only by replacing the attempt it read, so two retries cannot both act;
# - ``acted_at`` is set in the same transaction as every write made for the attempt (and
#   that write rolls back if the attempt no longer holds the key), so a reservation that
#   outlives a crash says whether its request took effect;
# - ``erased_at``: the stored response was emptied because it quoted what an erasure
#   removed (or an erasure committed while the request was in flight): a retry is told
#   so, and the request does not act again.

SCRIPT = """
    ALTER TABLE idempotency_keys ADD COLUMN attempt TEXT NOT NULL DEFAULT '';
    ALTER TABLE idempotency_keys ADD COLUMN acted_at INTEGER;
    ALTER TABLE idempotency_keys ADD COLUMN erased_at INTEGER;
    """
