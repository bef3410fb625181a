"""SQLite schema: ``ledger_keys`` lists every key with a stored version, not only keys
with operations of their own."""

# A filter by attribute walks ``ledger_keys`` (see the baseline). It was written by a
# key's first operation only, so the keys a step derives (a rename's new name, a one ->
# many change's members, an alias merge's subject) hold versions but no operation and
# were never listed: ``query(attribute=...)`` missed them at every ``known_at``. A key is
# now listed by its first operation or its first version, and goes when it has neither.

SCRIPT = """
    CREATE TRIGGER assertions_key_insert AFTER INSERT ON assertions
    BEGIN
        INSERT OR IGNORE INTO ledger_keys (tenant, subject, attribute)
            VALUES (NEW.tenant, NEW.subject, NEW.attribute);
    END;

    DROP TRIGGER operations_key_delete;
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

    INSERT OR IGNORE INTO ledger_keys (tenant, subject, attribute)
        SELECT DISTINCT tenant, subject, attribute FROM assertions;
"""
