"""PostgreSQL schema, version 12."""

# Ledger-key search that an index serves under row-level security. ``tsvector @@ tsquery``
# is not leakproof, so under the application role's policy the planner applied it as a
# filter after reading every key of the tenant (a sequential scan of ledger_keys). The
# lexemes of each key's tsvector are kept as rows here, under the same tenant policy;
# text equality is leakproof, so ``tenant = $1 AND lexeme = ANY(...)`` is an index
# condition and only the keys sharing a lexeme with the question are read, then
# rechecked with ``@@`` and ranked. Rows follow their key: inserted by a statement-level
# trigger (keys are never updated), deleted by ON DELETE CASCADE.

SCRIPT = """
    CREATE TABLE ledger_key_terms (
        tenant text NOT NULL CHECK (tenant <> ''),
        lexeme text NOT NULL,
        key_id bigint NOT NULL,
        PRIMARY KEY (tenant, lexeme, key_id),
        FOREIGN KEY (tenant, key_id) REFERENCES ledger_keys (tenant, key_id) ON DELETE CASCADE
    );
    CREATE INDEX ledger_key_terms_by_key ON ledger_key_terms (tenant, key_id);
    INSERT INTO ledger_key_terms (tenant, lexeme, key_id)
        SELECT k.tenant, l.lexeme, k.key_id FROM ledger_keys k, unnest(tsvector_to_array(k.search)) AS l(lexeme)
        ON CONFLICT DO NOTHING;

    -- Runs as the caller, so RLS scopes it like the insert that fired it.
    CREATE FUNCTION sgam_ledger_key_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO ledger_key_terms (tenant, lexeme, key_id)
            SELECT a.tenant, l.lexeme, a.key_id FROM added a, unnest(tsvector_to_array(a.search)) AS l(lexeme)
            ON CONFLICT DO NOTHING;
        RETURN NULL;
    END $$;
    CREATE TRIGGER ledger_keys_terms_insert AFTER INSERT ON ledger_keys
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sgam_ledger_key_terms_added();
    """
