"""SQLite schema, version 5."""

# The LangGraph store's current items (the ledger keeps their history) with their search
# text and vectors, and the action ledger of external calls made once.

SCRIPT = """
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
    """
