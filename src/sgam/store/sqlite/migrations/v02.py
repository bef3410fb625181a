"""SQLite schema, version 2."""

# Search indexes. FTS5 tables are kept exact by triggers on the ledger's own rows, so an
# erased episode or key leaves (or enters) every index in the same transaction; vectors
# are keyed by the episode's row and deleted with it, and a per- tenant generation lets
# in-process vector caches notice any change.

SCRIPT = """
    CREATE VIRTUAL TABLE episodes_fts USING fts5(
        speaker, text, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE ledger_keys_fts USING fts5(
        subject, attribute, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO episodes_fts (rowid, speaker, text)
        SELECT seq, coalesce(speaker, ''), text FROM episodes;

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

    -- The keys a question may name are searched once per key, not once per version: the
    -- ledger writes many versions of few keys, and an index entry per version would make
    -- every write pay for full-text indexing.
    CREATE TABLE ledger_keys (
        key_id INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        UNIQUE (tenant, subject, attribute)
    );
    INSERT INTO ledger_keys (tenant, subject, attribute)
        SELECT DISTINCT tenant, subject, attribute FROM operations;
    INSERT INTO ledger_keys_fts (rowid, subject, attribute)
        SELECT key_id, subject, attribute FROM ledger_keys;

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
    """
