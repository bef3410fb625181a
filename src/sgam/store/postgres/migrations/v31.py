"""PostgreSQL schema: a backfill's screening, so a read converts most keys from one version."""

# As SQLite's version 20: ``backfills.screened_at`` (when the first batch screened the
# attribute's distinct values; NULL: not yet), ``backfill_holdouts`` (the subjects holding
# a value a read cannot convert on its own; row-level security as every tenant table) and
# ``assertions_long_values`` (the versions too long for ``assertions_by_value``, by
# attribute). See ``ledger/screening.py``.

SCRIPT = """
    ALTER TABLE backfills ADD COLUMN screened_at timestamptz;
    CREATE TABLE backfill_holdouts (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        subject text NOT NULL,
        PRIMARY KEY (tenant, seq, subject)
    );
    CREATE INDEX assertions_long_values ON assertions (tenant, attribute COLLATE "C", subject)
        WHERE length(value) > 1100;
"""
