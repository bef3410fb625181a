"""SQLite schema, version 14."""

# Aliases: one subject under several names, as recorded operations.
# - ``subject_aliases``: each alias step as recorded (``name`` is another name of
#   ``subject`` from ``recorded_at`` until ``ended_at``, the unalias), in the tenant's
#   order of steps (``seq``, and ``ended_step`` for the unalias). ``after_seq`` places the step in the operation log:
#   operations with a greater ``seq`` were recorded after it (several steps may share
#   one instant). ``decided_by`` says whose decision it was, for the subject's page of names.
# - ``subject_resolution``: what each aliased name means, chains followed, over
#   transaction time; a name without a row means itself. Reads at any ``known_at`` resolve
#   a name with one index probe.
# Schema migrations are recorded steps too:
# - ``ledger_changes``: each rename, retype or cardinality change of an attribute as taken
#   (its fields and the shape before it in ``detail``), placed in the log like an alias;
# - ``attribute_resolution``: what an old attribute name means over transaction time, and
#   ``attribute_schemas.renamed_to`` what it means now (so a write's cached schema resolves it);
# - ``quarantine``: the operations a retype set aside (no conversion to the new type),
#   with their value then; erasure reaches them like any operation.
# Operations keep the name they were given; versions are stored under the subject the
# name meant when they were derived (``ledger/aliases.py`` re-derives a merged subject).

SCRIPT = """
    CREATE TABLE subject_aliases (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        name TEXT NOT NULL,
        subject TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        after_seq INTEGER NOT NULL,
        ended_step INTEGER,
        ended_at INTEGER,
        ended_after_seq INTEGER,
        decided_by TEXT,
        PRIMARY KEY (tenant, seq),
        CHECK (name <> subject),
        CHECK ((ended_at IS NULL) = (ended_after_seq IS NULL) AND (ended_at IS NULL) = (ended_step IS NULL)),
        CHECK (ended_at IS NULL OR ended_at >= recorded_at)
    ) WITHOUT ROWID;
    CREATE INDEX subject_aliases_by_name ON subject_aliases (tenant, name);
    CREATE INDEX subject_aliases_by_subject ON subject_aliases (tenant, subject);
    CREATE TABLE subject_resolution (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        subject TEXT NOT NULL,
        recorded_from INTEGER NOT NULL,
        recorded_to INTEGER,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> subject),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    ) WITHOUT ROWID;
    CREATE INDEX subject_resolution_by_subject ON subject_resolution (tenant, subject, recorded_from);
    CREATE TABLE ledger_changes (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('rename', 'retype', 'cardinality')),
        attribute TEXT NOT NULL,
        detail TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        after_seq INTEGER NOT NULL,
        decided_by TEXT,
        origin TEXT,
        PRIMARY KEY (tenant, seq)
    ) WITHOUT ROWID;
    CREATE TABLE attribute_resolution (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        attribute TEXT NOT NULL,
        recorded_from INTEGER NOT NULL,
        recorded_to INTEGER,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> attribute),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    ) WITHOUT ROWID;
    ALTER TABLE attribute_schemas ADD COLUMN renamed_to TEXT;
    CREATE TABLE quarantine (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value TEXT NOT NULL,
        since INTEGER NOT NULL,
        PRIMARY KEY (tenant, seq)
    ) WITHOUT ROWID;
    CREATE INDEX quarantine_by_attribute ON quarantine (tenant, attribute, subject);
    """
