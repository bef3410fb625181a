"""PostgreSQL schema, version 8."""

# Lifecycle. Retention classes and the class of each episode; an episode that lost its
# text by expiry keeps its row (assertions still name it) with ``lost_at`` set;
# derivations (summaries made from episodes); per-write deadlines; consent per subject
# and purpose ('' = every purpose); tombstones of erased episode ids (keyed digests
# only); an audit log without content. The unkeyed erasure digests of migration 1 could
# be reversed by guessing, so they are not carried over: the audit log keeps their
# counts and times.

SCRIPT = """
    CREATE TABLE retention_classes (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        ttl bigint CHECK (ttl IS NULL OR ttl > 0),
        on_expiry text NOT NULL CHECK (on_expiry IN ('erase', 'keep_facts')),
        declared_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, name)
    );

    ALTER TABLE episodes ADD COLUMN retention text NOT NULL DEFAULT 'default';
    ALTER TABLE episodes ADD COLUMN lost_at timestamptz;
    -- Deadlines are recorded_at + the class's ttl as it stands now: the first live row of a
    -- class is the next due, so "is anything due" is one probe per class, not a scan.
    CREATE INDEX episodes_by_retention ON episodes (tenant, retention, recorded_at);
    CREATE INDEX episodes_live_by_retention ON episodes (tenant, retention, recorded_at) WHERE lost_at IS NULL;

    CREATE TABLE episode_derivations (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        source_id text NOT NULL,
        PRIMARY KEY (tenant, episode_id, source_id),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE,
        FOREIGN KEY (tenant, source_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE
    );
    CREATE INDEX episode_derivations_by_source ON episode_derivations (tenant, source_id);

    ALTER TABLE operations ADD COLUMN expires_at timestamptz;
    CREATE INDEX operations_by_deadline ON operations (tenant, expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE consents (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        purpose text NOT NULL,
        granted boolean NOT NULL,
        changed_at timestamptz NOT NULL,
        seq bigint NOT NULL,
        PRIMARY KEY (tenant, subject, purpose)
    );

    CREATE TABLE tombstones (
        tenant text NOT NULL CHECK (tenant <> ''),
        digest text NOT NULL,
        PRIMARY KEY (tenant, digest)
    );

    CREATE TABLE audit_log (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        at timestamptz NOT NULL,
        action text NOT NULL,
        call text NOT NULL,
        target text,
        rows integer NOT NULL,
        detail text NOT NULL,
        PRIMARY KEY (tenant, seq)
    );
    INSERT INTO audit_log (tenant, at, action, call, target, rows, detail)
        SELECT tenant, erased_at, 'forget_' || target_kind, 'unknown', NULL, operations_removed, '{}'
        FROM erasures ORDER BY seq;
    DROP TABLE erasures;

    -- The purge serves every tenant, as the worker does, but the application role sees
    -- one tenant at a time: this owner-run function names the tenants with something past
    -- its deadline (tenant names only; the purge itself runs under each tenant's RLS).
    CREATE FUNCTION sgam_due_tenants(p_now timestamptz)
    RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT tenant FROM @SCHEMA@.operations WHERE expires_at <= p_now
        UNION
        SELECT e.tenant FROM @SCHEMA@.episodes e
        JOIN @SCHEMA@.retention_classes c ON c.tenant = e.tenant AND c.name = e.retention
        WHERE c.ttl IS NOT NULL
          AND e.recorded_at + c.ttl * interval '1 microsecond' <= p_now
          AND (e.lost_at IS NULL OR c.on_expiry = 'erase')
    $$;
    REVOKE ALL ON FUNCTION sgam_due_tenants(timestamptz) FROM PUBLIC;
    """
