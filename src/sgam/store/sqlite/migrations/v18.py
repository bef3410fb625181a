"""SQLite schema: a migration step's backfill, converted in batches that each commit."""

# A step on a large attribute (rename, retype, cardinality) is recorded at once and its
# stored versions are derived again afterwards, a batch of subjects per transaction, in
# subject order. ``backfills`` keeps, per step (``seq`` of ``ledger_changes``), the
# attributes it derives again (the step's renamed family, JSON), the last subject done
# (``after_subject``: a rerun resumes after it), the counts, and when it finished (NULL:
# reads of a subject after ``after_subject`` convert on the fly), and, for a retype
# alone on its attribute (no earlier step of it, no alias in the tenant), its type and
# map (``conversion``, JSON): a read then converts a key from its stored versions, without
# the log. Depends on ``ledger_changes`` of version 14.

SCRIPT = """
    CREATE TABLE backfills (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        attributes TEXT NOT NULL,
        after_subject TEXT,
        subjects_done INTEGER NOT NULL DEFAULT 0,
        subjects_total INTEGER NOT NULL,
        batches_done INTEGER NOT NULL DEFAULT 0,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        conversion TEXT,
        PRIMARY KEY (tenant, seq)
    ) WITHOUT ROWID;
"""
