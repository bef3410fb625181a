"""SQLite schema, version 15."""

# The full-text indexes of episodes and ledger keys become partitions of about
# ``fulltext.PART_ROWS`` rows each (``full_text_parts``): shared ones for small tenants
# (``full_text_members`` names those holding a tenant's rows), a large tenant's own for
# the rest, so an erasure merges one small index instead of the file's whole index. The
# triggers on the source rows queue each change (``full_text_queue``: row id and tenant,
# never text); the unit of work applies the queue before it commits (``fulltext.flush``).
# Existing rows are queued here and indexed when this migration commits. Deletions from
# the unpartitioned indexes (document chunks, LangGraph items) mark them for the next
# merge (``full_text_dirty``). Applies on top of version 13: it reads only tables of
# versions 1 to 5.

SCRIPT = """
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

    DROP TRIGGER episodes_search_insert;
    DROP TRIGGER episodes_search_update;
    DROP TRIGGER episodes_search_delete;
    DROP TRIGGER ledger_keys_search_insert;
    DROP TRIGGER ledger_keys_search_delete;

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

    CREATE TRIGGER document_chunks_search_dirty AFTER DELETE ON document_chunks
    BEGIN
        INSERT OR IGNORE INTO full_text_dirty VALUES ('document_chunks_fts');
    END;

    INSERT INTO full_text_queue SELECT 'episodes', tenant, 'add', seq FROM episodes;
    INSERT INTO full_text_queue SELECT 'keys', tenant, 'add', key_id FROM ledger_keys;
    DROP TABLE episodes_fts;
    DROP TABLE ledger_keys_fts;
    """
