"""SQLite schema, version 1."""

# The ledger: the tenant's schema, episodes, the operation log, assertion versions and
# erasure records.

SCRIPT = """
    CREATE TABLE tenant_schema (
        tenant TEXT PRIMARY KEY,
        version INTEGER NOT NULL
    ) WITHOUT ROWID;

    CREATE TABLE attribute_schemas (
        tenant TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value_type TEXT,
        memory_type TEXT,
        sensitive INTEGER NOT NULL DEFAULT 0,
        description TEXT,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (tenant, attribute)
    ) WITHOUT ROWID;

    CREATE TABLE memory_types (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        json_schema TEXT,
        schema_version INTEGER NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;

    CREATE TABLE episodes (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        occurred_at INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        text TEXT NOT NULL,
        speaker TEXT,
        kind TEXT NOT NULL,
        session TEXT,
        metadata TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX episodes_by_session ON episodes (tenant, session, occurred_at);

    CREATE TABLE operations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('write', 'retract', 'correct')),
        valid_at INTEGER NOT NULL,
        value TEXT,
        source TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        memory_type TEXT NOT NULL,
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        schema_version INTEGER NOT NULL,
        CHECK ((kind = 'retract') = (value IS NULL)),
        FOREIGN KEY (tenant, source) REFERENCES episodes (tenant, episode_id)
    );
    CREATE INDEX operations_by_key ON operations (tenant, subject, attribute, seq);
    CREATE INDEX operations_by_source ON operations (tenant, source);

    CREATE TABLE assertions (
        row_id INTEGER PRIMARY KEY,
        assertion_id INTEGER NOT NULL,
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        valid_from INTEGER NOT NULL,
        valid_to INTEGER,
        recorded_from INTEGER NOT NULL,
        recorded_to INTEGER,
        source TEXT NOT NULL,
        confidence REAL NOT NULL,
        schema_version INTEGER NOT NULL,
        supersedes INTEGER,
        origin TEXT NOT NULL,
        closed_by TEXT,
        CHECK (valid_to IS NULL OR valid_to > valid_from),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
    CREATE UNIQUE INDEX assertions_current
        ON assertions (tenant, subject, attribute, valid_from) WHERE recorded_to IS NULL;
    -- Carries the recorded interval so that as-known-at reads filter versions in the index
    -- and visit the table only for the one they return.
    CREATE INDEX assertions_by_key
        ON assertions (tenant, subject, attribute, valid_from, recorded_from, recorded_to);
    CREATE INDEX assertions_current_by_attribute
        ON assertions (tenant, attribute, subject, valid_from) WHERE recorded_to IS NULL;
    CREATE INDEX assertions_current_by_type
        ON assertions (tenant, memory_type, subject, attribute, valid_from) WHERE recorded_to IS NULL;

    -- Current versions of a key never overlap, so only the one starting last before the
    -- new version ends can overlap it: one index probe instead of a scan of the key.
    CREATE TRIGGER assertions_no_overlap BEFORE INSERT ON assertions
    WHEN NEW.recorded_to IS NULL
    BEGIN
        SELECT RAISE(ABORT, 'sgam invariant: two current assertions of a key would overlap')
        WHERE (
            SELECT coalesce(valid_to, 9223372036854775807) FROM assertions
            WHERE tenant = NEW.tenant AND subject = NEW.subject AND attribute = NEW.attribute
              AND recorded_to IS NULL
              AND valid_from < coalesce(NEW.valid_to, 9223372036854775807)
            ORDER BY valid_from DESC LIMIT 1
        ) > NEW.valid_from;
    END;

    CREATE TRIGGER assertions_retired_are_immutable BEFORE UPDATE ON assertions
    WHEN OLD.recorded_to IS NOT NULL OR NEW.recorded_to IS NULL
      OR NEW.value IS NOT OLD.value OR NEW.valid_from IS NOT OLD.valid_from
      OR NEW.valid_to IS NOT OLD.valid_to OR NEW.recorded_from IS NOT OLD.recorded_from
      OR NEW.tenant IS NOT OLD.tenant OR NEW.subject IS NOT OLD.subject
      OR NEW.attribute IS NOT OLD.attribute OR NEW.source IS NOT OLD.source
    BEGIN
        SELECT RAISE(ABORT, 'sgam invariant: only retiring a current assertion may update it');
    END;

    CREATE TABLE erasures (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        target_digest TEXT NOT NULL,
        erased_at INTEGER NOT NULL,
        operations_removed INTEGER NOT NULL
    );
    CREATE INDEX erasures_by_tenant ON erasures (tenant, erased_at);
    """
