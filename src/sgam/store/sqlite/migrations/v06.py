"""SQLite schema, version 6."""

# Lifecycle. Retention classes and the class of each episode; an episode that lost its
# text by expiry keeps its row (assertions still name it) with ``lost_at`` set;
# derivations (summaries made from episodes); per-write deadlines; consent per subject
# and purpose ('' = every purpose); tombstones of erased episode ids (keyed digests
# only); an audit log without content. The unkeyed erasure digests of migration 1 could
# be reversed by guessing, so they are not carried over: the audit log keeps their
# counts and times.

SCRIPT = """
    CREATE TABLE retention_classes (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        ttl INTEGER CHECK (ttl IS NULL OR ttl > 0),
        on_expiry TEXT NOT NULL CHECK (on_expiry IN ('erase', 'keep_facts')),
        declared_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;

    ALTER TABLE episodes ADD COLUMN retention TEXT NOT NULL DEFAULT 'default';
    ALTER TABLE episodes ADD COLUMN lost_at INTEGER;
    -- Deadlines are recorded_at + the class's ttl as it stands now: the first live row of a
    -- class is the next due, so "is anything due" is one probe per class, not a scan.
    CREATE INDEX episodes_by_retention ON episodes (tenant, retention, recorded_at);
    CREATE INDEX episodes_live_by_retention ON episodes (tenant, retention, recorded_at) WHERE lost_at IS NULL;

    CREATE TABLE episode_derivations (
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        PRIMARY KEY (tenant, episode_id, source_id),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE,
        FOREIGN KEY (tenant, source_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE INDEX episode_derivations_by_source ON episode_derivations (tenant, source_id);

    ALTER TABLE operations ADD COLUMN expires_at INTEGER;
    CREATE INDEX operations_by_deadline ON operations (tenant, expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE consents (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        purpose TEXT NOT NULL,
        granted INTEGER NOT NULL CHECK (granted IN (0, 1)),
        changed_at INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (tenant, subject, purpose)
    ) WITHOUT ROWID;

    CREATE TABLE tombstones (
        tenant TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (tenant, digest)
    ) WITHOUT ROWID;

    CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        at INTEGER NOT NULL,
        action TEXT NOT NULL,
        call TEXT NOT NULL,
        target TEXT,
        rows INTEGER NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_log_by_tenant ON audit_log (tenant, seq);
    INSERT INTO audit_log (tenant, at, action, call, target, rows, detail)
        SELECT tenant, erased_at, 'forget_' || target_kind, 'unknown', NULL, operations_removed, '{}'
        FROM erasures ORDER BY seq;
    DROP TABLE erasures;
    """
