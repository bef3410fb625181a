"""SQLite schema, version 13."""

# Subject ids are matched after normalisation (NFKC, case folding, white space collapsed)
# and attributes may hold sets, or name subjects:
# - ``subject_names``: the first spelling each subject id was given (its display name);
# - ``subject_collisions``: stored ids this migration left as they were, because two of
#   them fold into one id (``store/_subject_migration.py``; ``run`` renames the others);
# - ``attribute_schemas.cardinality``: ``one`` (a value per instant) or ``many`` (a set:
#   each member its own timeline, its ledger attribute ``attribute`` + U+001E + the
#   member's canonical JSON);
# - ``assertions_by_value``: which subjects hold a value of an attribute (``linked``: who
#   names a subject), over values short enough to be a subject id.

import sqlite3

from ..._subject_migration import distinct_subjects_sql, plan_subjects

SCRIPT = """
    CREATE TABLE subject_names (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        display TEXT NOT NULL,
        PRIMARY KEY (tenant, subject)
    ) WITHOUT ROWID;
    CREATE TABLE subject_collisions (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        stored TEXT NOT NULL,
        PRIMARY KEY (tenant, subject, stored)
    ) WITHOUT ROWID;
    ALTER TABLE attribute_schemas ADD COLUMN cardinality TEXT NOT NULL DEFAULT 'one'
        CHECK (cardinality IN ('one', 'many'));
    CREATE INDEX assertions_by_value ON assertions (tenant, attribute, value, subject)
        WHERE length(value) <= 1100;
    """


def run(conn: sqlite3.Connection) -> None:
    """Rename stored subject ids to their normalised form; report the ids that collide."""
    plan = plan_subjects(conn.execute(distinct_subjects_sql()).fetchall())
    conn.executemany("INSERT INTO subject_collisions (tenant, subject, stored) VALUES (?, ?, ?)", plan.collisions)
    if not plan.renames:
        return
    trigger = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                           "AND name = 'assertions_retired_are_immutable'").fetchone()
    conn.execute("DROP TRIGGER assertions_retired_are_immutable")
    renames = [(new, tenant, old) for tenant, old, new in plan.renames]
    conn.executemany("UPDATE ledger_keys_fts SET subject = ? WHERE rowid IN "
                     "(SELECT key_id FROM ledger_keys WHERE tenant = ? AND subject = ?)", renames)
    for table in ("operations", "assertions", "consents", "held_candidates", "ledger_keys", "ledger_key_types"):
        conn.executemany(f"UPDATE {table} SET subject = ? WHERE tenant = ? AND subject = ?", renames)  # noqa: S608
    conn.executemany("INSERT INTO subject_names (tenant, subject, display) VALUES (?, ?, ?)",
                     [(tenant, new, old) for tenant, old, new in plan.renames])
    conn.execute(trigger[0])
