"""SQLite schema, version 10 in one go: the baseline every later version builds on.

Times are INTEGER microseconds since the epoch (UTC); NULL ends mean "open". Versions 1
to 10 were written before sgam's first release and are folded into this script; a
database they wrote recorded each of them (``SQUASHED`` keeps their checksums) and goes
on from version 11 like one this script made.
"""

VERSION = 10

SQUASHED: dict[int, str] = {
    1: "d8ec9049c73cfffcfab16dd77e8f59b979dd5ac6459f5e6ee0d4cbf4e0fe83e0",
    2: "d60d8e973d071cbe8bddcad89006e16ad007a571fc18467d6cbccfd72a736ce8",
    3: "56b6b7a70e7e95998315062959a339a97e14acfe7be7210ad843250ee21b5cfb",
    4: "40e7321454268b128524bc375a34b7d447b4bbe634a52a0e97f46fc8fec78a98",
    5: "7deb721e5cbd69b083957a4627fb300660c38f0d44becc69bc1316a5c44560b2",
    6: "a0d169bd6b3e8b1063c3357a0c84a1a258d18a5743f5c175ddbb490e62cf1341",
    7: "30e776560d96670c302af08348234a4b2a9018a7be09bca03caff941e07b72b7",
    8: "5c3b9296e4216e12bcac1edffef1b2410d7350698204760b375539b8d758d938",
    9: "f7582916e5ec3dab352114f6dde4b4fd14c3dd108fe7db1c6c8a700129117459",
    10: "32d70c165a70970a531d9c8adbdcd422b32ef481546c876f236d2f2656e9440e",
}
"""The SHA-256 of the scripts of versions 1 to 10 as they were, which databases written
by them recorded. The scripts are gone, so their checksums cannot be computed again:
they are kept to accept those databases' records (``store/_migration_checksums.py``)."""

SCRIPT = """
    -- The ledger: the tenant's schema, episodes, the operation log and assertion versions.

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

    -- An episode that lost its text by expiry keeps its row (assertions still name it)
    -- with ``lost_at`` set.
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
        retention TEXT NOT NULL DEFAULT 'default',
        lost_at INTEGER,
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX episodes_by_session ON episodes (tenant, session, occurred_at);
    -- Deadlines are recorded_at + the class's ttl as it stands now: the first live row of a
    -- class is the next due, so "is anything due" is one probe per class, not a scan.
    CREATE INDEX episodes_by_retention ON episodes (tenant, retention, recorded_at);
    CREATE INDEX episodes_live_by_retention ON episodes (tenant, retention, recorded_at) WHERE lost_at IS NULL;

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
        expires_at INTEGER,
        CHECK ((kind = 'retract') = (value IS NULL)),
        FOREIGN KEY (tenant, source) REFERENCES episodes (tenant, episode_id)
    );
    -- Every write asks when its key last changed (transaction time never runs backwards
    -- within a key): carrying ``recorded_at`` answers it from the index alone instead of a
    -- random read of the operation log's table.
    CREATE INDEX operations_by_key ON operations (tenant, subject, attribute, seq, recorded_at);
    CREATE INDEX operations_by_source ON operations (tenant, source);
    CREATE INDEX operations_by_deadline ON operations (tenant, expires_at) WHERE expires_at IS NOT NULL;

    -- Assertion versions end where the next version of their key starts: a stored
    -- ``valid_to`` is an upper bound, a version's end the earlier of it and the start of
    -- the next version of its key visible at the same recorded instant, so an ordinary
    -- write appends one row. The database guards the ledger's invariants itself:
    -- - one holder per instant: the partial unique index ``assertions_current`` gives every
    --   current version of a key its own start, and ``assertions_end_before_next`` refuses
    --   a current version stored to end past the start of the next one;
    -- - no inverted or empty intervals: the CHECKs on the stored ends (a derived end is the
    --   start of a later version, after the version's own start);
    -- - retired versions are immutable, and current ones change only by being retired.
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

    CREATE TRIGGER assertions_end_before_next BEFORE INSERT ON assertions
    WHEN NEW.recorded_to IS NULL
    BEGIN
        SELECT RAISE(ABORT, 'sgam invariant: a current assertion would run past the start of the next one')
        WHERE (
            SELECT valid_from FROM assertions INDEXED BY assertions_current
            WHERE tenant = NEW.tenant AND subject = NEW.subject AND attribute = NEW.attribute
              AND recorded_to IS NULL AND valid_from > NEW.valid_from
            ORDER BY valid_from LIMIT 1
        ) < coalesce(NEW.valid_to, 9223372036854775807);
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

    -- Keys, once each. The keys a question may name are searched once per key, not once
    -- per version: the ledger writes many versions of few keys, and an index entry per
    -- version would make every write pay for full-text indexing. Filters by attribute and
    -- by memory type find their keys here too, in tables written once per key instead of
    -- indexes over current versions written on every version:
    -- - a filter by attribute walks ``ledger_keys`` (one row per key, written by the key's
    --   first operation) by attribute and subject, then the key's current versions;
    -- - a filter by memory type walks ``ledger_key_types``: every memory type a stored
    --   version of the key has had (a version's type comes from its operation or the
    --   attribute's schema, so a key may have several). It is a superset, kept by
    --   triggers; the query still checks each version's type. A write that keeps its key's
    --   type only probes it. When the last version of a key with a type is deleted
    --   (erasure, expiry), the row goes too, so no name outlives the rows that held it.
    CREATE TABLE ledger_keys (
        key_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        UNIQUE (tenant, subject, attribute)
    );
    CREATE UNIQUE INDEX ledger_keys_by_attribute ON ledger_keys (tenant, attribute, subject);

    CREATE TRIGGER operations_key_insert AFTER INSERT ON operations
    BEGIN
        INSERT OR IGNORE INTO ledger_keys (tenant, subject, attribute)
            VALUES (NEW.tenant, NEW.subject, NEW.attribute);
    END;

    CREATE TRIGGER operations_key_delete AFTER DELETE ON operations
    WHEN NOT EXISTS (
        SELECT 1 FROM operations
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute
    )
    BEGIN
        DELETE FROM ledger_keys
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute;
    END;

    CREATE TABLE ledger_key_types (
        tenant TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        PRIMARY KEY (tenant, memory_type, subject, attribute)
    ) WITHOUT ROWID;

    CREATE TRIGGER assertions_key_type_insert AFTER INSERT ON assertions
    BEGIN
        INSERT OR IGNORE INTO ledger_key_types (tenant, memory_type, subject, attribute)
            VALUES (NEW.tenant, NEW.memory_type, NEW.subject, NEW.attribute);
    END;

    CREATE TRIGGER assertions_key_type_delete AFTER DELETE ON assertions
    WHEN NOT EXISTS (
        SELECT 1 FROM assertions INDEXED BY assertions_by_key
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute
          AND memory_type = OLD.memory_type
    )
    BEGIN
        DELETE FROM ledger_key_types
        WHERE tenant = OLD.tenant AND memory_type = OLD.memory_type
          AND subject = OLD.subject AND attribute = OLD.attribute;
    END;

    -- Search indexes. FTS5 tables are kept exact by triggers on the ledger's own rows, so
    -- an erased episode or key leaves (or enters) every index in the same transaction;
    -- vectors are keyed by the episode's row and deleted with it, and a per-tenant
    -- generation lets in-process vector caches notice any change.
    CREATE VIRTUAL TABLE episodes_fts USING fts5(
        speaker, text, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE ledger_keys_fts USING fts5(
        subject, attribute, tokenize = 'porter unicode61 remove_diacritics 2'
    );

    CREATE TABLE episode_vectors (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE INDEX episode_vectors_by_tenant ON episode_vectors (tenant, model, seq);

    CREATE TABLE search_generation (
        tenant TEXT PRIMARY KEY,
        generation INTEGER NOT NULL
    ) WITHOUT ROWID;

    CREATE TRIGGER episodes_search_insert AFTER INSERT ON episodes
    BEGIN
        INSERT INTO episodes_fts (rowid, speaker, text) VALUES (NEW.seq, coalesce(NEW.speaker, ''), NEW.text);
    END;

    CREATE TRIGGER episodes_search_update AFTER UPDATE OF text, speaker ON episodes
    BEGIN
        DELETE FROM episodes_fts WHERE rowid = OLD.seq;
        INSERT INTO episodes_fts (rowid, speaker, text) VALUES (NEW.seq, coalesce(NEW.speaker, ''), NEW.text);
        DELETE FROM episode_vectors WHERE seq = OLD.seq;
    END;

    CREATE TRIGGER episodes_search_delete AFTER DELETE ON episodes
    BEGIN
        DELETE FROM episodes_fts WHERE rowid = OLD.seq;
        DELETE FROM episode_vectors WHERE seq = OLD.seq;
    END;

    CREATE TRIGGER episode_vectors_insert AFTER INSERT ON episode_vectors
    BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (NEW.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;

    CREATE TRIGGER episode_vectors_delete AFTER DELETE ON episode_vectors
    BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (OLD.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;

    CREATE TRIGGER ledger_keys_search_insert AFTER INSERT ON ledger_keys
    BEGIN
        INSERT INTO ledger_keys_fts (rowid, subject, attribute) VALUES (NEW.key_id, NEW.subject, NEW.attribute);
    END;

    CREATE TRIGGER ledger_keys_search_delete AFTER DELETE ON ledger_keys
    BEGIN
        DELETE FROM ledger_keys_fts WHERE rowid = OLD.key_id;
    END;

    CREATE TABLE assertion_vectors (
        row_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
    );

    CREATE TRIGGER assertions_search_delete AFTER DELETE ON assertions
    BEGIN
        DELETE FROM assertion_vectors WHERE row_id = OLD.row_id;
    END;

    -- The extraction path: what models replied, what policy decided, candidates held back
    -- (pending confirmation or buffered as weak signals) and the background job queue.
    CREATE TABLE extractions (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        error TEXT,
        model TEXT,
        raw_reply TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        latency_ms REAL,
        decisions TEXT NOT NULL,
        UNIQUE (tenant, episode_id, attempt)
    );

    CREATE TABLE held_candidates (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        hold TEXT NOT NULL CHECK (hold IN ('pending', 'buffered')),
        status TEXT NOT NULL CHECK (status IN ('open', 'confirmed', 'rejected', 'promoted')),
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        change TEXT NOT NULL,
        value TEXT NOT NULL,
        valid_from INTEGER NOT NULL,
        confidence REAL NOT NULL,
        stated INTEGER NOT NULL,
        evidence TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER,
        UNIQUE (tenant, hold, episode_id, subject, attribute, value, valid_from)
    );
    CREATE INDEX held_by_key ON held_candidates (tenant, subject, attribute, value, status);
    CREATE INDEX held_by_status ON held_candidates (tenant, status, seq);

    CREATE TABLE extraction_jobs (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'done', 'failed')),
        enqueued_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_expires INTEGER,
        last_error TEXT,
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX extraction_jobs_ready ON extraction_jobs (status, lease_expires, seq);

    -- Document memory: a tenant's files under /memories. ``documents`` holds each
    -- document's current state (a deleted one stays, not live, so it can be restored);
    -- ``document_revisions`` keeps every revision with who wrote it; the chunks of live
    -- documents are indexed for keyword (FTS5, kept exact by triggers) and vector search.
    -- Erasure deletes the document row and everything cascades from it. ``kept_since`` is
    -- when the document's oldest kept revision was recorded: plus its class's ttl it is the
    -- document's next deadline, so "is any document due" is one index probe per class.
    -- Revisions are found by the episode they name when that episode is erased.
    CREATE TABLE documents (
        doc_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        path TEXT NOT NULL,
        live INTEGER NOT NULL CHECK (live IN (0, 1)),
        revision INTEGER NOT NULL CHECK (revision >= 1),
        content TEXT,
        size INTEGER NOT NULL,
        retention TEXT NOT NULL,
        source TEXT,
        reviewed_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        kept_since INTEGER,
        CHECK ((live = 1) = (content IS NOT NULL))
    );
    CREATE UNIQUE INDEX documents_live_path ON documents (tenant, path) WHERE live = 1;
    CREATE INDEX documents_by_path ON documents (tenant, path, updated_at);
    CREATE INDEX documents_by_deadline ON documents (tenant, retention, kept_since);

    CREATE TABLE document_revisions (
        doc_id INTEGER NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
        revision INTEGER NOT NULL,
        tenant TEXT NOT NULL,
        path TEXT NOT NULL,
        op TEXT NOT NULL,
        content TEXT,
        author TEXT,
        episode TEXT,
        call_id TEXT,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (doc_id, revision)
    ) WITHOUT ROWID;
    CREATE INDEX document_revisions_by_path ON document_revisions (tenant, path);
    CREATE INDEX document_revisions_by_episode ON document_revisions (tenant, episode) WHERE episode IS NOT NULL;

    CREATE TABLE document_chunks (
        chunk_id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
        tenant TEXT NOT NULL,
        revision INTEGER NOT NULL,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX document_chunks_by_doc ON document_chunks (doc_id);
    CREATE INDEX document_chunks_by_tenant ON document_chunks (tenant, chunk_id);

    CREATE VIRTUAL TABLE document_chunks_fts USING fts5(
        path, text, tokenize = 'porter unicode61 remove_diacritics 2'
    );

    CREATE TRIGGER document_chunks_search_insert AFTER INSERT ON document_chunks
    BEGIN
        INSERT INTO document_chunks_fts (rowid, path, text) VALUES (NEW.chunk_id, NEW.path, NEW.text);
    END;

    CREATE TRIGGER document_chunks_search_delete AFTER DELETE ON document_chunks
    BEGIN
        DELETE FROM document_chunks_fts WHERE rowid = OLD.chunk_id;
    END;

    CREATE TABLE document_vectors (
        chunk_id INTEGER NOT NULL REFERENCES document_chunks (chunk_id) ON DELETE CASCADE,
        tenant TEXT NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (chunk_id, model)
    ) WITHOUT ROWID;
    CREATE INDEX document_vectors_by_tenant ON document_vectors (tenant, model);

    -- The LangGraph store's current items (the ledger keeps their history) with their
    -- search text and vectors, and the action ledger of external calls made once.
    CREATE TABLE store_items (
        row_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        expires_at INTEGER,
        ttl_minutes REAL,
        index_text TEXT,
        vectors BLOB,
        dims INTEGER,
        UNIQUE (tenant, namespace, key)
    );
    CREATE INDEX store_items_recent ON store_items (tenant, updated_at DESC, namespace, key);
    CREATE INDEX store_items_expiry ON store_items (tenant, expires_at) WHERE expires_at IS NOT NULL;
    CREATE VIRTUAL TABLE store_items_fts USING fts5(index_text, tokenize = 'porter unicode61');

    CREATE TABLE actions (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        action_key TEXT NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('in_doubt', 'done')),
        result TEXT,
        error TEXT,
        attempts INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (tenant, action_key)
    );
    CREATE INDEX actions_by_status ON actions (tenant, status, seq);

    -- Lifecycle. Retention classes and the class of each episode (``episodes.retention``);
    -- derivations (summaries made from episodes); per-write deadlines
    -- (``operations.expires_at``); consent per subject and purpose ('' = every purpose);
    -- tombstones of erased episode ids (keyed digests only); an audit log without content.
    CREATE TABLE retention_classes (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        ttl INTEGER CHECK (ttl IS NULL OR ttl > 0),
        on_expiry TEXT NOT NULL CHECK (on_expiry IN ('erase', 'keep_facts')),
        declared_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;

    CREATE TABLE episode_derivations (
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        PRIMARY KEY (tenant, episode_id, source_id),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE,
        FOREIGN KEY (tenant, source_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE
    ) WITHOUT ROWID;
    CREATE INDEX episode_derivations_by_source ON episode_derivations (tenant, source_id);

    CREATE TABLE consents (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        purpose TEXT NOT NULL,
        granted INTEGER NOT NULL CHECK (granted IN (0, 1)),
        changed_at INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (tenant, subject, purpose)
    ) WITHOUT ROWID;
    -- reads load the statements of subjects with a revoked one only, found here
    CREATE INDEX consents_revoked ON consents (tenant, purpose, subject) WHERE granted = 0;

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

    -- The network surfaces: API keys (only a digest of the secret) and the responses of
    -- POST requests made with an Idempotency-Key, so a retried request does not act twice.
    CREATE TABLE api_keys (
        tenant TEXT NOT NULL CHECK (tenant <> ''),
        key_id TEXT NOT NULL,
        scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
        digest TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        PRIMARY KEY (tenant, key_id)
    );

    CREATE TABLE idempotency_keys (
        tenant TEXT NOT NULL CHECK (tenant <> ''),
        idempotency_key TEXT NOT NULL,
        request_digest TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        status INTEGER,
        response TEXT,
        PRIMARY KEY (tenant, idempotency_key)
    );
    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant, created_at);
    """
