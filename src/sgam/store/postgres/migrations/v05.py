"""PostgreSQL schema, version 5."""

# The LangGraph store's current items (the ledger keeps their history) with their search
# text and vectors, and the action ledger of external calls made once. ``namespace`` is
# compared bytewise (COLLATE "C") so a prefix is an index range.

SCRIPT = """
    CREATE TABLE store_items (
        tenant text NOT NULL CHECK (tenant <> ''),
        namespace text COLLATE "C" NOT NULL,
        key text NOT NULL,
        value text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz,
        ttl_minutes double precision,
        index_text text,
        search tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(index_text, ''))) STORED,
        vectors bytea,
        dims integer,
        PRIMARY KEY (tenant, namespace, key)
    );
    CREATE INDEX store_items_recent ON store_items (tenant, updated_at DESC, namespace, key);
    CREATE INDEX store_items_expiry ON store_items (tenant, expires_at) WHERE expires_at IS NOT NULL;
    CREATE INDEX store_items_search ON store_items USING gin (search);

    CREATE TABLE actions (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        action_key text NOT NULL,
        request text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_doubt', 'done')),
        result text,
        error text,
        attempts integer NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, action_key)
    );
    CREATE INDEX actions_by_status ON actions (tenant, status, seq);
    """
