"""SQLite schema: a backfill's screening, so a read converts most keys from one version."""

# A read of a key a lone retype's backfill has not reached converts it on the fly. Until
# now it read every stored version of the key to learn whether all its values convert,
# none to another's value: a read 2-2.5x an untouched one at 1M versions. The backfill's
# first batch now screens the attribute's distinct values once (``ledger/screening.py``)
# and records the subjects holding a value a read cannot convert on its own:
# - ``backfills.screened_at``: when that was done (NULL: not yet, reads still read every
#   value of the key);
# - ``backfill_holdouts``: per backfill, those subjects (deleted when it finishes, and
#   with the subject's other rows by an erasure);
# - ``assertions_long_values``: the versions too long for ``assertions_by_value``, by
#   attribute, so the screening finds them without reading the table (a partial index:
#   writes of ordinary values pay only its condition).

SCRIPT = """
    ALTER TABLE backfills ADD COLUMN screened_at INTEGER;
    CREATE TABLE backfill_holdouts (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        subject TEXT NOT NULL,
        PRIMARY KEY (tenant, seq, subject)
    ) WITHOUT ROWID;
    CREATE INDEX assertions_long_values ON assertions (tenant, attribute, subject) WHERE length(value) > 1100;
"""
