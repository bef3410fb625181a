"""PostgreSQL schema, version 21."""

# Subject ids are matched after normalisation (NFKC, case folding, white space collapsed)
# and attributes may hold sets, or name subjects:
# - ``subject_names``: the first spelling each subject id was given (its display name);
# - ``subject_collisions``: stored ids this migration left as they were, because two of
#   them fold into one id (``store/_subject_migration.py``; ``run`` renames the others:
#   PostgreSQL before 18 has no Unicode case folding in SQL, so Python decides);
# - ``attribute_schemas.cardinality``: ``one`` (a value per instant) or ``many`` (a set:
#   each member its own timeline, its ledger attribute ``attribute`` + U+001E + the
#   member's canonical JSON);
# - ``ledger_keys_members``: a subject's keys in code point order (COLLATE "C"), so the
#   members of a set are one index range whatever the database's collation;
# - ``assertions_by_value``: which subjects hold a value of an attribute (``linked``: who
#   names a subject), over values short enough to be a subject id.

from typing import Any

import psycopg

from ..._subject_migration import distinct_subjects_sql, plan_subjects

SCRIPT = """
    CREATE TABLE subject_names (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        display text NOT NULL,
        PRIMARY KEY (tenant, subject)
    );
    CREATE TABLE subject_collisions (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        stored text NOT NULL,
        PRIMARY KEY (tenant, subject, stored)
    );
    ALTER TABLE attribute_schemas ADD COLUMN cardinality text NOT NULL DEFAULT 'one'
        CHECK (cardinality IN ('one', 'many'));
    CREATE INDEX ledger_keys_members ON ledger_keys (tenant, subject, attribute COLLATE "C");
    CREATE INDEX assertions_by_value ON assertions (tenant, attribute COLLATE "C", value, subject)
        WHERE length(value) <= 1100;
    """


def run(conn: psycopg.Connection[Any]) -> None:
    """Rename stored subject ids to their normalised form; report the ids that collide."""
    plan = plan_subjects([(str(t), str(s)) for t, s in conn.execute(distinct_subjects_sql()).fetchall()])
    with conn.cursor() as cursor:
        cursor.executemany("INSERT INTO subject_collisions (tenant, subject, stored) VALUES (%s, %s, %s)",
                           plan.collisions)
        if not plan.renames:
            return
        renames = [(new, tenant, old) for tenant, old, new in plan.renames]
        conn.execute("ALTER TABLE assertions DISABLE TRIGGER assertions_retired_are_immutable")
        for table in ("operations", "assertions", "consents", "held_candidates", "ledger_keys"):
            cursor.executemany(f"UPDATE {table} SET subject = %s WHERE tenant = %s AND subject = %s",  # noqa: S608
                               renames)
        conn.execute("ALTER TABLE assertions ENABLE TRIGGER assertions_retired_are_immutable")
        # the key's search terms follow its (generated) search column
        cursor.executemany(
            "DELETE FROM ledger_key_terms t USING ledger_keys k WHERE k.tenant = %s AND k.subject = %s "
            "AND t.tenant = k.tenant AND t.key_id = k.key_id", [(tenant, new) for tenant, _, new in plan.renames])
        cursor.executemany(
            "INSERT INTO ledger_key_terms (tenant, lexeme, key_id) SELECT k.tenant, l.lexeme, k.key_id "
            "FROM ledger_keys k, unnest(tsvector_to_array(k.search)) AS l(lexeme) "
            "WHERE k.tenant = %s AND k.subject = %s ON CONFLICT DO NOTHING",
            [(tenant, new) for tenant, _, new in plan.renames])
        cursor.executemany("INSERT INTO subject_names (tenant, subject, display) VALUES (%s, %s, %s)",
                           [(tenant, new, old) for tenant, old, new in plan.renames])
