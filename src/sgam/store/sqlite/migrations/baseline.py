"""SQLite schema, version 1: the whole schema an empty database gets, in one script.

Times are INTEGER microseconds since the epoch (UTC); NULL ends mean "open". Tables are
grouped with their indexes and triggers; the comments say why each guard exists. A later
version is a new module beside this one (see ``__init__``), never an edit of this script:
databases record its checksum.
"""

VERSION = 1

SCRIPT = """
    -- The ledger: the tenant's schema, episodes, the operation log and assertion versions.

    CREATE TABLE tenant_schema (
        tenant TEXT PRIMARY KEY,
        version INTEGER NOT NULL
    ) WITHOUT ROWID;

    -- An attribute's ``cardinality`` is ``one`` (a value per instant) or ``many`` (a set:
    -- each member its own timeline, its ledger attribute ``attribute`` + U+001E + the
    -- member's canonical JSON); ``renamed_to`` is what an attribute renamed by a schema
    -- step is called now, so a write's cached schema resolves the old name
    -- (``attribute_resolution`` keeps the history).
    CREATE TABLE attribute_schemas (
        tenant TEXT NOT NULL,
        attribute TEXT NOT NULL,
        value_type TEXT,
        memory_type TEXT,
        sensitive INTEGER NOT NULL DEFAULT 0,
        description TEXT,
        schema_version INTEGER NOT NULL,
        cardinality TEXT NOT NULL DEFAULT 'one' CHECK (cardinality IN ('one', 'many')),
        renamed_to TEXT,
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

    -- Ids a tenant sees (an operation's ``seq``, an extraction's, a held candidate's) are
    -- counted per tenant, one row per numbering (``name``: the table numbered), so they
    -- say nothing of other tenants' writes (``store/_sql/counters.py``).
    CREATE TABLE tenant_counters (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        last INTEGER NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;

    CREATE TABLE operations (
        seq INTEGER NOT NULL,
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
        PRIMARY KEY (tenant, seq),
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
    -- Which subjects hold a value of an attribute (``linked``: who names a subject), over
    -- values short enough to be a subject id; the longer ones have their own partial index
    -- so a backfill's screening finds them without reading the table (writes of ordinary
    -- values pay only its condition).
    CREATE INDEX assertions_by_value ON assertions (tenant, attribute, value, subject)
        WHERE length(value) <= 1100;
    CREATE INDEX assertions_long_values ON assertions (tenant, attribute, subject) WHERE length(value) > 1100;

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
    -- - a filter by attribute walks ``ledger_keys`` (one row per key with an operation or
    --   a stored version: the keys a schema step or an alias merge derives hold versions
    --   but no operation) by attribute and subject, then the key's current versions; a key
    --   goes when it has neither;
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

    CREATE TRIGGER assertions_key_insert AFTER INSERT ON assertions
    BEGIN
        INSERT OR IGNORE INTO ledger_keys (tenant, subject, attribute)
            VALUES (NEW.tenant, NEW.subject, NEW.attribute);
    END;

    CREATE TRIGGER operations_key_delete AFTER DELETE ON operations
    WHEN NOT EXISTS (
        SELECT 1 FROM operations
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute
    ) AND NOT EXISTS (
        SELECT 1 FROM assertions INDEXED BY assertions_by_key
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute
    )
    BEGIN
        DELETE FROM ledger_keys
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute;
    END;

    CREATE TRIGGER assertions_key_delete AFTER DELETE ON assertions
    WHEN NOT EXISTS (
        SELECT 1 FROM assertions INDEXED BY assertions_by_key
        WHERE tenant = OLD.tenant AND subject = OLD.subject AND attribute = OLD.attribute
    ) AND NOT EXISTS (
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

    -- Search indexes. The full-text indexes of episodes and ledger keys are partitions of
    -- about ``fulltext.PART_ROWS`` rows each (``full_text_parts``): shared ones for small
    -- tenants (``full_text_members`` names those holding a tenant's rows), a large tenant's
    -- own for the rest, so an erasure merges one small index instead of the file's whole
    -- index. The triggers on the source rows queue each change (``full_text_queue``: row id
    -- and tenant, never text) in the same transaction; the unit of work applies the queue
    -- before it commits (``fulltext.flush``). Deletions from the unpartitioned indexes
    -- (document chunks, LangGraph items) mark them for the next merge (``full_text_dirty``).
    CREATE TABLE full_text_parts (
        part INTEGER PRIMARY KEY,
        family TEXT NOT NULL,
        tenant TEXT,
        first_row INTEGER NOT NULL,
        last_row INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        dirty INTEGER NOT NULL,
        UNIQUE (family, tenant, first_row)
    );
    CREATE INDEX full_text_parts_dirty ON full_text_parts (dirty) WHERE dirty = 1;

    CREATE TABLE full_text_members (
        family TEXT NOT NULL,
        tenant TEXT NOT NULL,
        part INTEGER NOT NULL,
        rows INTEGER NOT NULL,
        PRIMARY KEY (family, tenant, part)
    ) WITHOUT ROWID;

    CREATE TABLE full_text_queue (
        family TEXT NOT NULL,
        tenant TEXT NOT NULL,
        change TEXT NOT NULL CHECK (change IN ('add', 'drop')),
        row_id INTEGER NOT NULL,
        PRIMARY KEY (family, tenant, change, row_id)
    ) WITHOUT ROWID;

    CREATE TABLE full_text_dirty (
        name TEXT PRIMARY KEY
    ) WITHOUT ROWID;

    CREATE TRIGGER episodes_search_insert AFTER INSERT ON episodes
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('episodes', NEW.tenant, 'add', NEW.seq);
    END;

    CREATE TRIGGER episodes_search_update AFTER UPDATE OF text, speaker ON episodes
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('episodes', OLD.tenant, 'drop', OLD.seq);
        INSERT OR IGNORE INTO full_text_queue VALUES ('episodes', NEW.tenant, 'add', NEW.seq);
        DELETE FROM episode_vectors WHERE seq = OLD.seq;
    END;

    CREATE TRIGGER episodes_search_delete AFTER DELETE ON episodes
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('episodes', OLD.tenant, 'drop', OLD.seq);
        DELETE FROM episode_vectors WHERE seq = OLD.seq;
    END;

    CREATE TRIGGER ledger_keys_search_insert AFTER INSERT ON ledger_keys
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('keys', NEW.tenant, 'add', NEW.key_id);
    END;

    CREATE TRIGGER ledger_keys_search_update AFTER UPDATE OF subject, attribute ON ledger_keys
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('keys', OLD.tenant, 'drop', OLD.key_id);
        INSERT OR IGNORE INTO full_text_queue VALUES ('keys', NEW.tenant, 'add', NEW.key_id);
    END;

    CREATE TRIGGER ledger_keys_search_delete AFTER DELETE ON ledger_keys
    BEGIN
        INSERT OR IGNORE INTO full_text_queue VALUES ('keys', OLD.tenant, 'drop', OLD.key_id);
    END;

    -- Vectors are keyed by their row and the embedder that made them, so re-embedding
    -- builds a new embedder's vectors beside the old ones (``search/reembedding.py``);
    -- they are deleted with their row, and a per-tenant generation lets in-process vector
    -- caches notice any change.
    CREATE TABLE episode_vectors (
        seq INTEGER NOT NULL,
        model TEXT NOT NULL,
        tenant TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (seq, model)
    );
    CREATE INDEX episode_vectors_by_tenant ON episode_vectors (tenant, model, seq);

    CREATE TABLE search_generation (
        tenant TEXT PRIMARY KEY,
        generation INTEGER NOT NULL
    ) WITHOUT ROWID;

    CREATE TRIGGER episode_vectors_insert AFTER INSERT ON episode_vectors BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (NEW.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;
    CREATE TRIGGER episode_vectors_delete AFTER DELETE ON episode_vectors BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (OLD.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;

    CREATE TABLE assertion_vectors (
        row_id INTEGER NOT NULL,
        model TEXT NOT NULL,
        tenant TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (row_id, model)
    );
    CREATE INDEX assertion_vectors_by_tenant ON assertion_vectors (tenant, model);

    CREATE TRIGGER assertions_search_delete AFTER DELETE ON assertions
    BEGIN
        DELETE FROM assertion_vectors WHERE row_id = OLD.row_id;
    END;

    -- Per tenant, the embedder search uses (``active``: NULL means the embedder each
    -- process is configured with) and the one being built, each with the spec a process
    -- loads it by (NULL for an embedder given as an object: only processes that were
    -- given it can use it). Search switches once every episode, current fact and document
    -- chunk has a vector of the one being built.
    CREATE TABLE search_embedders (
        tenant TEXT NOT NULL PRIMARY KEY CHECK (tenant <> ''),
        active TEXT,
        active_spec TEXT,
        building TEXT,
        building_spec TEXT,
        building_since INTEGER,
        switched_at INTEGER,
        CHECK (building IS NULL OR building_since IS NOT NULL)
    ) WITHOUT ROWID;

    -- The extraction path: what models replied, what policy decided, candidates held back
    -- (pending confirmation or buffered as weak signals) and the background job queue.
    CREATE TABLE extractions (
        seq INTEGER NOT NULL,
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
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, episode_id, attempt)
    );

    CREATE TABLE held_candidates (
        seq INTEGER NOT NULL,
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
        PRIMARY KEY (tenant, seq),
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

    CREATE TRIGGER document_chunks_search_dirty AFTER DELETE ON document_chunks
    BEGIN
        INSERT OR IGNORE INTO full_text_dirty VALUES ('document_chunks_fts');
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
    -- search text and vectors, and the action ledger of external calls made once. An action
    -- made from inside a LangGraph run (or given a thread) records its thread, so a
    -- thread's page shows the external calls it began and finished.
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
        thread_id TEXT,
        UNIQUE (tenant, action_key)
    );
    CREATE INDEX actions_by_status ON actions (tenant, status, seq);
    CREATE INDEX actions_by_thread ON actions (tenant, thread_id, seq) WHERE thread_id IS NOT NULL;

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
    -- Idempotent requests act once, and their stored responses obey erasure:
    -- - ``attempt`` names the attempt holding a reservation: a retry takes over an
    --   abandoned reservation only by replacing the attempt it read, so two retries cannot
    --   both act;
    -- - ``acted_at`` is set in the same transaction as every write made for the attempt
    --   (and that write rolls back if the attempt no longer holds the key), so a
    --   reservation that outlives a crash says whether its request took effect;
    -- - ``erased_at``: the stored response was emptied because it quoted what an erasure
    --   removed (or an erasure committed while the request was in flight): a retry is told
    --   so, and the request does not act again.
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
        attempt TEXT NOT NULL DEFAULT '',
        acted_at INTEGER,
        erased_at INTEGER,
        PRIMARY KEY (tenant, idempotency_key)
    );
    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant, created_at);

    -- Checkpoint memory: LangGraph's checkpoints of the tenant's threads, beside the ledger
    -- in the same file (store/_sql/checkpoints.py says why a checkpoint is stored whole). A
    -- thread has a retention class (its history is pruned, or the thread erased, when the
    -- class's ttl has passed) and may name the subjects it is about, so that erasing a
    -- subject reaches the threads that quote it. The tables are named apart from
    -- LangGraph's own savers' (``checkpoints``, ``writes``, ``checkpoint_writes``), which
    -- users may keep in the same file.
    CREATE TABLE saver_threads (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        retention TEXT NOT NULL,
        PRIMARY KEY (tenant, thread_id)
    ) WITHOUT ROWID;

    CREATE TABLE saver_checkpoints (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id TEXT,
        run_id TEXT,
        kind TEXT NOT NULL,
        body BLOB NOT NULL,
        metadata_kind TEXT NOT NULL,
        metadata BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id)
    );
    CREATE INDEX saver_checkpoints_by_run ON saver_checkpoints (tenant, run_id) WHERE run_id IS NOT NULL;

    CREATE TABLE saver_writes (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        kind TEXT NOT NULL,
        body BLOB NOT NULL,
        task_path TEXT NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    );

    CREATE TABLE saver_subjects (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        PRIMARY KEY (tenant, subject, thread_id)
    ) WITHOUT ROWID;
    CREATE INDEX saver_subjects_by_thread ON saver_subjects (tenant, thread_id);

    -- Subjects. Subject ids are matched after normalisation (NFKC, case folding, white
    -- space collapsed); ``subject_names`` keeps the first spelling each id was given (its
    -- display name), ``subject_collisions`` stored ids left as they were because two of
    -- them fold into one id, for the operator (docs/lifecycle.md).
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

    -- Aliases: one subject under several names, as recorded operations.
    -- - ``subject_aliases``: each alias step as recorded (``name`` is another name of
    --   ``subject`` from ``recorded_at`` until ``ended_at``, the unalias), in the tenant's
    --   order of steps (``seq``, and ``ended_step`` for the unalias). ``after_seq`` places
    --   the step in the operation log: operations with a greater ``seq`` were recorded
    --   after it (several steps may share one instant). ``decided_by`` says whose decision
    --   it was, for the subject's page of names.
    -- - ``subject_resolution``: what each aliased name means, chains followed, over
    --   transaction time; a name without a row means itself. Reads at any ``known_at``
    --   resolve a name with one index probe.
    -- Operations keep the name they were given; versions are stored under the subject the
    -- name meant when they were derived (``ledger/aliases.py`` re-derives a merged subject).
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

    -- Schema migration steps are recorded steps too:
    -- - ``ledger_changes``: each rename, retype or cardinality change of an attribute as
    --   taken (its fields and the shape before it in ``detail``), placed in the log like an
    --   alias;
    -- - ``attribute_resolution``: what an old attribute name means over transaction time
    --   (``attribute_schemas.renamed_to`` what it means now);
    -- - ``quarantine``: the operations a retype set aside (no conversion to the new type),
    --   with their value then; erasure reaches them like any operation.
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

    -- What a new version of a typed memory type made of each stored value. Its conversion
    -- function is Python the database does not have, so its outcome for each operation it
    -- changed is kept: ``value`` the converted value's canonical JSON, or ``reason`` why
    -- the operation was set aside. Re-deriving the attribute later reads these instead of
    -- calling the function. ``step`` is the change's ``seq``; an operation's rows die with
    -- it (``ON DELETE CASCADE``), so erasure and expiry reach them like the operation
    -- itself. ``(tenant, seq)`` leads the key so the cascade finds a deleted operation's rows by index.
    CREATE TABLE converted_values (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        step INTEGER NOT NULL,
        value TEXT,
        reason TEXT,
        PRIMARY KEY (tenant, seq, step),
        FOREIGN KEY (tenant, seq) REFERENCES operations (tenant, seq) ON DELETE CASCADE,
        CHECK ((value IS NULL) <> (reason IS NULL))
    ) WITHOUT ROWID;

    -- A step on a large attribute is recorded at once and its stored versions derived
    -- again afterwards, a batch of subjects per transaction, in subject order. Per step
    -- (``seq`` of ``ledger_changes``): the attributes it derives again (JSON), the last
    -- subject done (``after_subject``: a rerun resumes after it), the counts, when it
    -- finished (NULL: reads of a subject after ``after_subject`` convert on the fly), and,
    -- for a retype alone on its attribute, its type and map (``conversion``, JSON): a read
    -- then converts a key from its stored versions, without the log. The first batch
    -- screens the attribute's distinct values once (``ledger/screening.py``,
    -- ``screened_at``) and records in ``backfill_holdouts`` the subjects holding a value a
    -- read cannot convert on its own (deleted when it finishes, and with the subject's
    -- other rows by an erasure).
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
        screened_at INTEGER,
        PRIMARY KEY (tenant, seq)
    ) WITHOUT ROWID;
    CREATE TABLE backfill_holdouts (
        tenant TEXT NOT NULL,
        seq INTEGER NOT NULL,
        subject TEXT NOT NULL,
        PRIMARY KEY (tenant, seq, subject)
    ) WITHOUT ROWID;
    """
