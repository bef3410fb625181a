"""SQLite schema, version 10."""

# Filters by attribute and by memory type find their keys in tables written once per key
# instead of indexes written on every version. The two partial indexes over current
# versions that only ``query``'s filters used (by attribute, by memory type) each took a
# random-position insert on every write: two of the five index inserts a one-fact write
# made, and two of the pages every commit and checkpoint wrote. Now:
# - a filter by attribute walks ``ledger_keys`` (one row per key, written by the key's
#   first operation) by attribute and subject, then the key's current versions;
# - a filter by memory type walks ``ledger_key_types``: every memory type a stored version
#   of the key has had (a version's type comes from its operation or the attribute's
#   schema, so a key may have several). It is a superset, kept by triggers; the query
#   still checks each version's type. A write that keeps its key's type only probes it.
#   When the last version of a key with a type is deleted (erasure, expiry), the row
#   goes too, so no name outlives the rows that held it.
#
# Every write asks when its key last changed (transaction time never runs backwards
# within a key): ``operations_by_key`` now carries ``recorded_at``, so the answer comes
# from the index alone instead of a random read of the operation log's table.

SCRIPT = """
    DROP INDEX assertions_current_by_attribute;
    DROP INDEX assertions_current_by_type;

    DROP INDEX operations_by_key;
    CREATE INDEX operations_by_key ON operations (tenant, subject, attribute, seq, recorded_at);

    CREATE UNIQUE INDEX ledger_keys_by_attribute ON ledger_keys (tenant, attribute, subject);

    CREATE TABLE ledger_key_types (
        tenant TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        PRIMARY KEY (tenant, memory_type, subject, attribute)
    ) WITHOUT ROWID;

    INSERT INTO ledger_key_types (tenant, memory_type, subject, attribute)
        SELECT DISTINCT tenant, memory_type, subject, attribute FROM assertions;

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
    """
