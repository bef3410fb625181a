"""PostgreSQL schema: a migration step's backfill, converted in batches that each commit."""

# As SQLite's version 17: ``backfills`` keeps, per step (``seq`` of ``ledger_changes``),
# the attributes it derives again (JSON), the last subject done (a rerun resumes after
# it), the counts, and when it finished (NULL: reads of a subject after
# ``after_subject`` convert on the fly). Row-level security as every tenant table.

SCRIPT = """
    CREATE TABLE backfills (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        attributes text NOT NULL,
        after_subject text,
        subjects_done bigint NOT NULL DEFAULT 0,
        subjects_total bigint NOT NULL,
        batches_done bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        PRIMARY KEY (tenant, seq)
    );
"""
