"""PostgreSQL schema, version 1: the whole schema an empty database gets, in one script.

Tables are grouped with their indexes, triggers and functions; the comments say why each
guard exists. Row-level security, its policies and the application role's grants are not
here: ``rls_statements`` and ``grant_statements`` (re)install them after every migration.
A later version is a new module beside this one (see ``__init__``), never an edit of this
script: databases record its checksum.
"""

VERSION = 1

SCRIPT = """
    -- btree_gin lets a GIN index lead with the tenant; vector is pgvector. Nothing here
    -- uses btree_gist any more (an early layout's exclusion constraint on assertion
    -- intervals did); it stays among the extensions the owner installs (docs/postgres.md).
    CREATE EXTENSION IF NOT EXISTS btree_gist;
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE EXTENSION IF NOT EXISTS btree_gin;

    -- The ledger: the tenant's schema, episodes, the operation log and assertion versions.

    CREATE TABLE tenant_schema (
        tenant text NOT NULL CHECK (tenant <> ''),
        version integer NOT NULL,
        PRIMARY KEY (tenant)
    );

    -- An attribute's ``cardinality`` is ``one`` (a value per instant) or ``many`` (a set:
    -- each member its own timeline, its ledger attribute ``attribute`` + U+001E + the
    -- member's canonical JSON); ``renamed_to`` is what an attribute renamed by a schema
    -- step is called now, so a write's cached schema resolves the old name
    -- (``attribute_resolution`` keeps the history).
    CREATE TABLE attribute_schemas (
        tenant text NOT NULL CHECK (tenant <> ''),
        attribute text NOT NULL,
        value_type text,
        memory_type text,
        sensitive boolean NOT NULL DEFAULT false,
        description text,
        schema_version integer NOT NULL,
        cardinality text NOT NULL DEFAULT 'one' CHECK (cardinality IN ('one', 'many')),
        renamed_to text,
        PRIMARY KEY (tenant, attribute)
    );

    CREATE TABLE memory_types (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        json_schema text,
        schema_version integer NOT NULL,
        PRIMARY KEY (tenant, name)
    );

    -- An episode's search text weighs the speaker B and the text A: ts_rank_cd's weights
    -- make a speaker match count less. An episode that lost its text by expiry keeps its
    -- row (assertions still name it) with ``lost_at`` set.
    CREATE TABLE episodes (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL,
        text text NOT NULL,
        speaker text,
        kind text NOT NULL,
        session text,
        metadata text NOT NULL,
        schema_version integer NOT NULL,
        search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', coalesce(speaker, '')), 'B')
            || setweight(to_tsvector('english', text), 'A')
        ) STORED,
        retention text NOT NULL DEFAULT 'default',
        lost_at timestamptz,
        PRIMARY KEY (tenant, episode_id)
    );
    CREATE INDEX episodes_by_seq ON episodes (tenant, seq);
    CREATE INDEX episodes_by_session ON episodes (tenant, session, occurred_at, seq);
    -- Keyword search stays on its index after a bulk ingest. GIN's fast update queues new
    -- entries in a pending list (up to 4 MB by default) that every search must scan until
    -- (auto)vacuum merges it: after 10,000 episodes it held 422 pages, the planner rightly
    -- chose a sequential scan for each term's document count and for the match, and keyword
    -- search took 26-42 ms instead of 4-6 ms until autovacuum came by. With a 128 kB limit
    -- the inserting transaction merges the list once it outgrows that (a few pages at a
    -- time); measured ingest was unchanged within the noise, where turning fast update off
    -- altogether cost about a fifth of it.
    CREATE INDEX episodes_search ON episodes USING gin (tenant, search) WITH (gin_pending_list_limit = 128);
    -- Deadlines are recorded_at + the class's ttl as it stands now: the first live row of a
    -- class is the next due, so "is anything due" is one probe per class, not a scan.
    CREATE INDEX episodes_by_retention ON episodes (tenant, retention, recorded_at);
    CREATE INDEX episodes_live_by_retention ON episodes (tenant, retention, recorded_at) WHERE lost_at IS NULL;

    -- Ids a tenant sees (an operation's ``seq``, an extraction's, a held candidate's) are
    -- counted per tenant, one row per numbering (``name``: the table numbered), so they
    -- say nothing of other tenants' writes (``store/_sql/counters.py``).
    CREATE TABLE tenant_counters (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        last bigint NOT NULL,
        PRIMARY KEY (tenant, name)
    );

    CREATE TABLE operations (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        subject text NOT NULL,
        attribute text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('write', 'retract', 'correct')),
        valid_at timestamptz NOT NULL,
        value text,
        source text NOT NULL,
        recorded_at timestamptz NOT NULL,
        memory_type text NOT NULL,
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        schema_version integer NOT NULL,
        expires_at timestamptz,
        CHECK ((kind = 'retract') = (value IS NULL)),
        PRIMARY KEY (tenant, seq),
        FOREIGN KEY (tenant, source) REFERENCES episodes (tenant, episode_id)
    );
    CREATE INDEX operations_by_key ON operations (tenant, subject, attribute, seq);
    CREATE INDEX operations_by_source ON operations (tenant, source);
    CREATE INDEX operations_by_deadline ON operations (tenant, expires_at) WHERE expires_at IS NOT NULL;

    -- Assertion versions end where the next version of their key starts: a stored
    -- ``valid_to`` is an upper bound, a version's end the earlier of it and the start of the
    -- next version of its key visible at the same recorded instant, so an ordinary write
    -- appends one row. The guards:
    -- - one holder per instant: the partial unique index ``assertions_current`` gives every
    --   current version of a key its own start, and an end is never later than the next
    --   start, so two current versions cannot both hold at an instant; the trigger
    --   ``assertions_end_before_next`` refuses a current version stored to end past the
    --   start of the next one (the only direction in which a write may not overlap);
    -- - no inverted or empty intervals: the CHECKs on the stored ends; a derived end is the
    --   start of a later version, after the version's own start;
    -- - retired versions are immutable, and current versions change only by being retired
    --   (``assertions_retired_are_immutable``).
    CREATE TABLE assertions (
        tenant text NOT NULL CHECK (tenant <> ''),
        row_id bigint GENERATED ALWAYS AS IDENTITY,
        assertion_id bigint NOT NULL,
        subject text NOT NULL,
        attribute text NOT NULL,
        value text NOT NULL,
        value_json jsonb GENERATED ALWAYS AS (value::jsonb) STORED,
        memory_type text NOT NULL,
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        recorded_from timestamptz NOT NULL,
        recorded_to timestamptz,
        source text NOT NULL,
        confidence double precision NOT NULL,
        schema_version integer NOT NULL,
        supersedes bigint,
        origin text NOT NULL CHECK (origin IN ('write', 'retract', 'correct')),
        closed_by text,
        PRIMARY KEY (tenant, row_id),
        CHECK (valid_to IS NULL OR valid_to > valid_from),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
    CREATE UNIQUE INDEX assertions_current
        ON assertions (tenant, subject, attribute, valid_from) WHERE recorded_to IS NULL;
    CREATE INDEX assertions_by_key ON assertions (tenant, subject, attribute, valid_from);
    CREATE INDEX assertions_current_by_attribute
        ON assertions (tenant, attribute, subject, valid_from) WHERE recorded_to IS NULL;
    CREATE INDEX assertions_current_by_type
        ON assertions (tenant, memory_type, subject, attribute, valid_from) WHERE recorded_to IS NULL;
    -- Which subjects hold a value of an attribute (``linked``: who names a subject), over
    -- values short enough to be a subject id; the longer ones have their own partial index
    -- so a backfill's screening finds them without reading the table (writes of ordinary
    -- values pay only its condition). COLLATE "C": code point order whatever the
    -- database's collation.
    CREATE INDEX assertions_by_value ON assertions (tenant, attribute COLLATE "C", value, subject)
        WHERE length(value) <= 1100;
    CREATE INDEX assertions_long_values ON assertions (tenant, attribute COLLATE "C", subject)
        WHERE length(value) > 1100;

    CREATE FUNCTION sgam_retired_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF OLD.recorded_to IS NOT NULL OR NEW.recorded_to IS NULL
           OR NEW.value IS DISTINCT FROM OLD.value OR NEW.valid_from IS DISTINCT FROM OLD.valid_from
           OR NEW.valid_to IS DISTINCT FROM OLD.valid_to
           OR NEW.recorded_from IS DISTINCT FROM OLD.recorded_from
           OR NEW.tenant IS DISTINCT FROM OLD.tenant OR NEW.subject IS DISTINCT FROM OLD.subject
           OR NEW.attribute IS DISTINCT FROM OLD.attribute OR NEW.source IS DISTINCT FROM OLD.source
        THEN
            RAISE EXCEPTION 'sgam invariant: only retiring a current assertion may update it'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER assertions_retired_are_immutable BEFORE UPDATE ON assertions
        FOR EACH ROW EXECUTE FUNCTION sgam_retired_are_immutable();

    CREATE FUNCTION sgam_end_before_next() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        IF NEW.recorded_to IS NULL AND EXISTS (
            SELECT 1 FROM @SCHEMA@.assertions
            WHERE tenant = NEW.tenant AND subject = NEW.subject AND attribute = NEW.attribute
              AND recorded_to IS NULL AND valid_from > NEW.valid_from
              AND (NEW.valid_to IS NULL OR valid_from < NEW.valid_to)
        ) THEN
            RAISE EXCEPTION 'sgam invariant: a current assertion would run past the start of the next one'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER assertions_end_before_next BEFORE INSERT ON assertions
        FOR EACH ROW EXECUTE FUNCTION sgam_end_before_next();

    -- Ledger keys: one row per key, not per version: the ledger writes many versions of few
    -- keys, and an index entry per version would make every write pay for full-text indexing.
    CREATE TABLE ledger_keys (
        tenant text NOT NULL CHECK (tenant <> ''),
        key_id bigint GENERATED ALWAYS AS IDENTITY,
        subject text NOT NULL,
        attribute text NOT NULL,
        search tsvector GENERATED ALWAYS AS (
            to_tsvector('english', replace(subject, '_', ' ') || ' ' || replace(attribute, '_', ' '))
        ) STORED,
        PRIMARY KEY (tenant, key_id),
        UNIQUE (tenant, subject, attribute)
    );
    CREATE INDEX ledger_keys_search ON ledger_keys USING gin (tenant, search);
    -- A subject's keys in code point order (COLLATE "C"), so the members of a set are one
    -- index range whatever the database's collation.
    CREATE INDEX ledger_keys_members ON ledger_keys (tenant, subject, attribute COLLATE "C");

    -- Statement-level with transition tables: a batch of a thousand operations is one
    -- INSERT here, not a thousand. They run as the caller, so RLS scopes them too. An
    -- import sets sgam.keys_deferred for its transaction and lists every key of the
    -- tenant once at its end (one statement, instead of one per batch of operations).
    CREATE FUNCTION sgam_ledger_keys_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO ledger_keys (tenant, subject, attribute)
            SELECT DISTINCT tenant, subject, attribute FROM added
            ON CONFLICT (tenant, subject, attribute) DO NOTHING;
        RETURN NULL;
    END $$;
    CREATE TRIGGER operations_key_insert AFTER INSERT ON operations
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT
        WHEN (current_setting('sgam.keys_deferred', true) IS DISTINCT FROM 'on')
        EXECUTE FUNCTION sgam_ledger_keys_added();

    CREATE FUNCTION sgam_ledger_keys_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM ledger_keys k
        USING (SELECT DISTINCT tenant, subject, attribute FROM removed) r
        WHERE k.tenant = r.tenant AND k.subject = r.subject AND k.attribute = r.attribute
          AND NOT EXISTS (SELECT 1 FROM operations o WHERE o.tenant = r.tenant
                          AND o.subject = r.subject AND o.attribute = r.attribute);
        RETURN NULL;
    END $$;
    CREATE TRIGGER operations_key_delete AFTER DELETE ON operations
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sgam_ledger_keys_removed();

    -- Ledger-key search that an index serves under row-level security. ``tsvector @@ tsquery``
    -- is not leakproof, so under the application role's policy the planner applied it as a
    -- filter after reading every key of the tenant (a sequential scan of ledger_keys). The
    -- lexemes of each key's tsvector are kept as rows here, under the same tenant policy;
    -- text equality is leakproof, so ``tenant = $1 AND lexeme = ANY(...)`` is an index
    -- condition and only the keys sharing a lexeme with the question are read, then
    -- rechecked with ``@@`` and ranked. Rows follow their key: inserted by a statement-level
    -- trigger (keys are never updated), deleted by ON DELETE CASCADE.
    CREATE TABLE ledger_key_terms (
        tenant text NOT NULL CHECK (tenant <> ''),
        lexeme text NOT NULL,
        key_id bigint NOT NULL,
        PRIMARY KEY (tenant, lexeme, key_id),
        FOREIGN KEY (tenant, key_id) REFERENCES ledger_keys (tenant, key_id) ON DELETE CASCADE
    );
    CREATE INDEX ledger_key_terms_by_key ON ledger_key_terms (tenant, key_id);

    -- Runs as the caller, so RLS scopes it like the insert that fired it. No conflict to
    -- check: the keys are new (their ids just made) and a tsvector's lexemes distinct.
    CREATE FUNCTION sgam_ledger_key_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO ledger_key_terms (tenant, lexeme, key_id)
            SELECT a.tenant, l.lexeme, a.key_id FROM added a, unnest(tsvector_to_array(a.search)) AS l(lexeme);
        RETURN NULL;
    END $$;
    CREATE TRIGGER ledger_keys_terms_insert AFTER INSERT ON ledger_keys
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sgam_ledger_key_terms_added();

    -- Search: full text on episodes (above), ledger keys and document chunks (tsvector +
    -- GIN); vectors of episodes and assertions (pgvector) that die with their rows by
    -- ON DELETE CASCADE.
    -- OR of any number of tsqueries, each built by plainto_tsquery from one bound term.
    CREATE AGGREGATE sgam_tsquery_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery);

    -- Vectors of any dimension in one column; ``dims`` selects the partial HNSW index of
    -- that dimension (sgam_vector_index, created the first time a dimension is stored).
    -- Episode vectors carry the episode's filter columns, so a filtered vector search (a
    -- recall up to a valid time, a session, a speaker, a transaction time) tests the
    -- filter on the vector row itself, by an exact scan or by pgvector's iterative HNSW
    -- scan alike, instead of joining every vector of the tenant to its episode (ten times
    -- the unfiltered search at 10k episodes). Episodes never change these columns (a
    -- re-recorded id must have the same content), so the copies stay exact; its foreign
    -- key has no ON UPDATE CASCADE (it never fires, and Citus refuses a cascading update
    -- on a key that holds the distribution column).
    CREATE TABLE episode_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        model text NOT NULL,
        seq bigint NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL,
        session text,
        speaker text,
        PRIMARY KEY (tenant, episode_id, model),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE
    );
    CREATE INDEX episode_vectors_by_model ON episode_vectors (tenant, model, dims);

    CREATE TABLE assertion_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        row_id bigint NOT NULL,
        model text NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        PRIMARY KEY (tenant, row_id, model),
        FOREIGN KEY (tenant, row_id) REFERENCES assertions (tenant, row_id) ON DELETE CASCADE
    );
    CREATE INDEX assertion_vectors_by_model ON assertion_vectors (tenant, model, dims);

    -- The app role owns no table, so it cannot create an index: this owner-run function
    -- creates the HNSW index of one dimension on both vector tables, once, for the
    -- dimensions the owner allowed (``vector_dimensions``, filled by ``sgam migrate
    -- --vector-dims``, which also creates them at once); other dimensions are stored and
    -- searched exactly. pgvector's HNSW takes at most 2000 dimensions.
    CREATE TABLE vector_dimensions (
        dims integer PRIMARY KEY CHECK (dims BETWEEN 1 AND 2000)
    );

    CREATE FUNCTION sgam_vector_index(p_dims integer) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        vector_schema name;
        target text;
    BEGIN
        IF to_regclass(format('@SCHEMA@.%I', 'episode_vectors_hnsw_' || p_dims)) IS NOT NULL
           AND to_regclass(format('@SCHEMA@.%I', 'assertion_vectors_hnsw_' || p_dims)) IS NOT NULL THEN
            RETURN;  -- already there: the catalog alone answers, no table is read
        END IF;
        IF NOT EXISTS (SELECT 1 FROM @SCHEMA@.vector_dimensions WHERE dims = p_dims) THEN
            RETURN;  -- not allowed: searched exactly
        END IF;
        PERFORM pg_advisory_xact_lock(1399283053, p_dims);
        SELECT n.nspname INTO vector_schema FROM pg_extension x
            JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'vector';
        FOREACH target IN ARRAY ARRAY['episode_vectors', 'assertion_vectors'] LOOP
            EXECUTE format(
                'CREATE INDEX IF NOT EXISTS %I ON @SCHEMA@.%I USING hnsw '
                '((embedding::%I.vector(%s)) %I.vector_cosine_ops) WHERE dims = %s',
                target || '_hnsw_' || p_dims, target, vector_schema, p_dims, vector_schema, p_dims);
        END LOOP;
    END $$;
    REVOKE ALL ON FUNCTION sgam_vector_index(integer) FROM PUBLIC;

    -- A narrow first pass for exact vector search in large tenants. Without an HNSW index
    -- the vector channel scanned every episode vector of the tenant, 1 KB per row at 256
    -- dimensions: 5-6 ms at 10k episodes but 130-260 ms at 100k, where the rows no longer
    -- fit the caches and the scan pushed the episodes the search reads next out of shared
    -- buffers. episode_vector_heads keeps, per vector of at least 64 dimensions, the first
    -- three eighths of its unit-length copy as a halfvec (96 dimensions, 192 bytes, for
    -- 256), with the episode's filter columns, in rows a quarter the width. From 20,000
    -- episodes in a tenant the search ranks those heads by inner product, keeps the best
    -- candidates and ranks them exactly (store/postgres/search.py); below that, or where
    -- the dimension has an HNSW index, it searches as before. Rows follow their vector
    -- through statement-level triggers on insert, update (re-embedding, or the cascade of
    -- a renamed episode) and delete (erasure cascades from episodes to vectors). No
    -- foreign key: its check would lock every vector row it names, which cut ingest to a
    -- fifth.
    CREATE TABLE episode_vector_heads (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        model text NOT NULL,
        seq bigint NOT NULL,
        dims integer NOT NULL,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL,
        session text,
        speaker text,
        head halfvec NOT NULL,
        PRIMARY KEY (tenant, episode_id, model)
    );
    CREATE INDEX episode_vector_heads_by_model ON episode_vector_heads (tenant, model, dims);

    -- Runs as the caller, so RLS scopes it like the statement that fired it.
    CREATE FUNCTION sgam_episode_vector_heads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                   subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec
            FROM changed WHERE dims >= 64
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
        RETURN NULL;
    END $$;
    CREATE FUNCTION sgam_episode_vector_heads_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM episode_vector_heads h USING gone g
            WHERE h.tenant = g.tenant AND h.episode_id = g.episode_id AND h.model = g.model
              AND NOT EXISTS (SELECT 1 FROM changed c WHERE c.tenant = g.tenant AND c.episode_id = g.episode_id
                              AND c.model = g.model AND c.dims >= 64);
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                   subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec
            FROM changed WHERE dims >= 64
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
        RETURN NULL;
    END $$;
    -- The model is compared as an expression, so the only index the join can probe is the
    -- primary key's (tenant, episode_id): a search embedder's switch deletes every vector
    -- of the old model in one statement, and probing the heads by (tenant, model) with
    -- fresh statistics scanned all of the model's heads per vector (8-14 s for 10,000).
    CREATE FUNCTION sgam_episode_vector_heads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM episode_vector_heads h USING gone g
            WHERE h.tenant = g.tenant AND h.episode_id = g.episode_id AND h.model || '' = g.model;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episode_vectors_heads_insert AFTER INSERT ON episode_vectors
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads();
    CREATE TRIGGER episode_vectors_heads_update AFTER UPDATE ON episode_vectors
        REFERENCING OLD TABLE AS gone NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads_updated();
    CREATE TRIGGER episode_vectors_heads_delete AFTER DELETE ON episode_vectors
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vector_heads_deleted();

    -- Episode vectors searched in process, kept exact by a tally: a process may keep a
    -- tenant's vectors in memory (store/postgres/vectors.py) if it can tell, in the
    -- snapshot of the search, that its copy is the tenant's vectors:
    -- - ``episode_vector_counts``: per (tenant, model, dims), the vectors stored, the sum
    --   of their episode keys, a count of every row inserted, deleted or rewritten (a
    --   counter that only grows, so an equal total means nothing changed) and a count of
    --   rewrites alone (an episode renamed or embedded again: its key kept, its row
    --   changed), in one of eight slots per tenant chosen by the backend's process id (as
    --   ``episode_counts``), so that concurrent writers of one tenant rarely wait for each
    --   other's slot;
    -- - statement-level triggers on ``episode_vectors`` keep it (transition tables: the
    --   rows each statement changed, cascades of an erasure included), run as the caller,
    --   under the tenant policy;
    -- - ``episode_vectors_by_seq``: a tenant's vectors of one model and dimension in key
    --   order, so a process reads only the vectors appended since its copy, or its copy's
    --   keys, without sorting the tenant.
    -- TRUNCATE of episode_vectors fires nothing: truncate episode_vector_counts with it
    -- (it is in TENANT_TABLES).
    CREATE TABLE episode_vector_counts (
        tenant text NOT NULL CHECK (tenant <> ''),
        model text NOT NULL,
        dims integer NOT NULL,
        slot integer NOT NULL,
        vectors bigint NOT NULL,
        key_sum bigint NOT NULL,
        changes bigint NOT NULL,
        rewrites bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, model, dims, slot)
    );
    CREATE INDEX episode_vectors_by_seq ON episode_vectors (tenant, model, dims, seq);

    -- Runs as the caller, so RLS scopes it like the statement that fired it.
    CREATE FUNCTION sgam_episode_vectors_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes)
                SELECT tenant, model, dims, pg_backend_pid() % 8, count(*), sum(seq), count(*)
                FROM changed GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes)
                SELECT tenant, model, dims, pg_backend_pid() % 8, -count(*), -sum(seq), count(*)
                FROM gone GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes;
        ELSE
            INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes, rewrites)
                SELECT tenant, model, dims, pg_backend_pid() % 8, sum(n), sum(s), count(*), count(*)
                FROM (SELECT tenant, model, dims, -1 AS n, -seq AS s FROM gone
                      UNION ALL SELECT tenant, model, dims, 1, seq FROM changed) AS moved
                GROUP BY tenant, model, dims
                ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
                    key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes,
                    rewrites = c.rewrites + excluded.rewrites;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episode_vectors_counted_insert AFTER INSERT ON episode_vectors
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();
    CREATE TRIGGER episode_vectors_counted_update AFTER UPDATE ON episode_vectors
        REFERENCING OLD TABLE AS gone NEW TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();
    CREATE TRIGGER episode_vectors_counted_delete AFTER DELETE ON episode_vectors
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION sgam_episode_vectors_counted();

    -- Keyword search of episodes through an owner-run function. Row-level security lets
    -- the planner use a condition as an index condition ahead of the policy only if it is
    -- leakproof, and ``tsvector @@ tsquery`` is not: under the app role every full-text
    -- match (and each term's document frequency) tested every episode of the tenant, so
    -- search cost O(episodes). The owner reads episodes under its own policy
    -- (search_owner, FOR SELECT, in rls_statements), and this function filters by the
    -- caller's ``sgam.tenant`` itself, so the GIN index serves the match; no tenant set,
    -- no rows. Ranking: per-term IDF in the tenant times ts_rank (BM25-shaped), weights D,
    -- C, B, A = 0.1, 0.2, 0.3, 1.0 (a speaker match counts 0.3 of a text match).
    --
    -- The tenant's episode count comes from a tally instead of counting: an index scan of
    -- every episode of the tenant on each search cost 1.7 ms at 10k episodes and tens of
    -- milliseconds at 100k. Statement-level triggers on episodes add what each INSERT
    -- inserted and subtract what each DELETE deleted (transition tables: exactly the rows
    -- changed, idempotent repeats and cascades included), into one of eight slots per
    -- tenant chosen by the backend's process id, so that concurrent writers of one tenant
    -- rarely wait for each other's slot. The count is the sum of the tenant's slots, read
    -- in the statement's snapshot like the count(*) it replaces. The triggers run as the
    -- caller: row-level security scopes them like the statement that fired them. TRUNCATE
    -- of episodes fires nothing: truncate episode_counts with it (every tenant table is
    -- listed in TENANT_TABLES, which the tests and benchmarks truncate).
    CREATE TABLE episode_counts (
        tenant text NOT NULL CHECK (tenant <> ''),
        slot integer NOT NULL,
        episodes bigint NOT NULL,
        PRIMARY KEY (tenant, slot)
    );

    CREATE FUNCTION sgam_episodes_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO episode_counts AS c (tenant, slot, episodes)
                SELECT tenant, pg_backend_pid() % 8, count(*) FROM changed GROUP BY tenant
                ON CONFLICT (tenant, slot) DO UPDATE SET episodes = c.episodes + excluded.episodes;
        ELSE
            INSERT INTO episode_counts AS c (tenant, slot, episodes)
                SELECT tenant, pg_backend_pid() % 8, -count(*) FROM changed GROUP BY tenant
                ON CONFLICT (tenant, slot) DO UPDATE SET episodes = c.episodes + excluded.episodes;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER episodes_counted_insert AFTER INSERT ON episodes
        REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episodes_counted();
    CREATE TRIGGER episodes_counted_delete AFTER DELETE ON episodes
        REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION sgam_episodes_counted();

    -- Keyword search of the caller's tenant, ranked, with each episode's row: the caller's
    -- statement reads this function alone (no table beside it), so on a distributed
    -- database the function runs where the statement was sent, and its own statements
    -- are routed by tenant from there.
    CREATE FUNCTION sgam_keyword_episodes(
        p_terms text[], p_limit integer, p_since timestamptz, p_until timestamptz,
        p_session text, p_speaker text, p_subject text, p_memory_type text, p_known_at timestamptz
    ) RETURNS TABLE (seq bigint, tenant text, episode_id text, occurred_at timestamptz, recorded_at timestamptz,
                     text text, speaker text, kind text, session text, metadata text, schema_version integer,
                     retention text, lost_at timestamptz)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp AS $$
    #variable_conflict use_column
    DECLARE
        v_tenant text := current_setting('sgam.tenant', true);
        v_docs bigint;
        v_df bigint;
        v_term text;
        v_query tsquery;
        v_queries tsquery[] := '{}';
        v_idf numeric[] := '{}';
        v_any tsquery;
    BEGIN
        IF v_tenant IS NULL OR v_tenant = '' OR p_terms IS NULL THEN
            RETURN;
        END IF;
        SELECT coalesce(sum(episodes), 0) INTO v_docs FROM @SCHEMA@.episode_counts WHERE tenant = v_tenant;
        FOREACH v_term IN ARRAY p_terms LOOP
            v_query := plainto_tsquery('english', v_term);
            SELECT count(*) INTO v_df FROM @SCHEMA@.episodes WHERE tenant = v_tenant AND search @@ v_query;
            IF v_df > 0 THEN
                v_queries := v_queries || v_query;
                v_idf := v_idf || ln(1 + (v_docs - v_df + 0.5) / (v_df + 0.5));
                v_any := CASE WHEN v_any IS NULL THEN v_query ELSE v_any || v_query END;
            END IF;
        END LOOP;
        IF v_any IS NULL THEN
            RETURN;
        END IF;
        RETURN QUERY
            SELECT e.seq, e.tenant, e.episode_id, e.occurred_at, e.recorded_at, e.text, e.speaker, e.kind, e.session,
                   e.metadata, e.schema_version, e.retention, e.lost_at
            FROM @SCHEMA@.episodes e
            WHERE e.tenant = v_tenant AND e.search @@ v_any
              AND (p_since IS NULL OR e.occurred_at >= p_since)
              AND (p_until IS NULL OR e.occurred_at <= p_until)
              AND (p_known_at IS NULL OR e.recorded_at <= p_known_at)
              AND (p_session IS NULL OR e.session = p_session)
              AND (p_speaker IS NULL OR e.speaker = p_speaker)
              AND (p_subject IS NULL OR EXISTS (SELECT 1 FROM @SCHEMA@.operations o WHERE o.tenant = v_tenant
                   AND o.source = e.episode_id AND o.subject = p_subject))
              AND (p_memory_type IS NULL OR EXISTS (SELECT 1 FROM @SCHEMA@.operations o WHERE o.tenant = v_tenant
                   AND o.source = e.episode_id AND o.memory_type = p_memory_type))
            ORDER BY (SELECT sum(w.idf * ts_rank('{0.1, 0.2, 0.3, 1.0}', e.search, w.q, 1))
                      FROM unnest(v_queries, v_idf) AS w(q, idf)) DESC, e.seq
            LIMIT p_limit;
    END $$;
    REVOKE ALL ON FUNCTION
        sgam_keyword_episodes(text[], integer, timestamptz, timestamptz, text, text, text, text, timestamptz)
        FROM PUBLIC;

    -- The extraction path: what models replied, what policy decided, candidates held back
    -- (pending confirmation or buffered as weak signals) and the extraction job queue.
    CREATE TABLE extractions (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        episode_id text NOT NULL,
        attempt integer NOT NULL,
        recorded_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('ok', 'failed')),
        error text,
        model text,
        raw_reply text,
        prompt_tokens integer,
        completion_tokens integer,
        latency_ms double precision,
        decisions text NOT NULL,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, episode_id, attempt)
    );

    CREATE TABLE held_candidates (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        episode_id text NOT NULL,
        hold text NOT NULL CHECK (hold IN ('pending', 'buffered')),
        status text NOT NULL CHECK (status IN ('open', 'confirmed', 'rejected', 'promoted')),
        subject text NOT NULL,
        attribute text NOT NULL,
        change text NOT NULL,
        value text NOT NULL,
        valid_from timestamptz NOT NULL,
        confidence double precision NOT NULL,
        stated boolean NOT NULL,
        evidence text NOT NULL,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, hold, episode_id, subject, attribute, value, valid_from)
    );
    CREATE INDEX held_by_key ON held_candidates (tenant, subject, attribute, value, status);
    CREATE INDEX held_by_status ON held_candidates (tenant, status, seq);

    CREATE TABLE extraction_jobs (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        episode_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'done', 'failed')),
        enqueued_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_expires timestamptz,
        last_error text,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX extraction_jobs_ready ON extraction_jobs (status, lease_expires, seq);

    -- One worker drains the queue of every tenant, but the application role sees one
    -- tenant at a time. These two functions run as the owner (SECURITY DEFINER), whose
    -- only cross-tenant policy is on this queue table (jobs_worker, in rls_statements): they
    -- lease and count jobs and can do nothing else. ``sgam_claim_jobs`` caps the lease (an
    -- hour past the caller's clock, which may not run ahead of the server's by more than
    -- five minutes) and the batch (100), and returns only what a worker needs (no other
    -- tenant's error text or lease owners).
    CREATE FUNCTION sgam_claim_jobs(p_owner text, p_now timestamptz, p_lease_until timestamptz,
                                    p_limit integer, p_tenant text)
    RETURNS TABLE (tenant text, episode_id text, enqueued_at timestamptz, attempts integer,
                   lease_expires timestamptz, seq bigint)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
    #variable_conflict use_column
    -- The ready jobs are read without locks, in queue order; each is then locked alone,
    -- under its tenant (SKIP LOCKED: one another worker holds is passed over) and leased.
    -- A lock names its tenant, so a distributed database routes it to one shard; a job
    -- leased meanwhile by a worker that committed fails the locking read's recheck.
    DECLARE
        v_now timestamptz := least(p_now, statement_timestamp() + interval '5 minutes');
        v_limit integer := greatest(least(p_limit, 100), 0);
        v_claimed integer := 0;
        r record;
    BEGIN
        IF v_limit = 0 THEN
            RETURN;
        END IF;
        FOR r IN SELECT q.tenant, q.seq FROM @SCHEMA@.extraction_jobs q
                 WHERE q.status = 'queued' AND (q.lease_expires IS NULL OR q.lease_expires <= v_now)
                   AND (p_tenant IS NULL OR q.tenant = p_tenant)
                 ORDER BY q.seq LOOP
            PERFORM 1 FROM @SCHEMA@.extraction_jobs q
             WHERE q.tenant = r.tenant AND q.seq = r.seq AND q.status = 'queued'
               AND (q.lease_expires IS NULL OR q.lease_expires <= v_now)
               FOR UPDATE SKIP LOCKED;
            CONTINUE WHEN NOT FOUND;
            RETURN QUERY
                UPDATE @SCHEMA@.extraction_jobs j
                   SET lease_owner = p_owner,
                       lease_expires = least(p_lease_until, v_now + interval '1 hour'),
                       attempts = j.attempts + 1
                 WHERE j.tenant = r.tenant AND j.seq = r.seq
                RETURNING j.tenant, j.episode_id, j.enqueued_at, j.attempts, j.lease_expires, j.seq;
            v_claimed := v_claimed + 1;
            EXIT WHEN v_claimed >= v_limit;
        END LOOP;
    END $$;

    CREATE FUNCTION sgam_count_jobs(p_now timestamptz, p_tenant text)
    RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT count(*) FROM @SCHEMA@.extraction_jobs
        WHERE status = 'queued' AND (lease_expires IS NULL OR lease_expires <= p_now)
          AND (p_tenant IS NULL OR tenant = p_tenant)
    $$;
    REVOKE ALL ON FUNCTION sgam_claim_jobs(text, timestamptz, timestamptz, integer, text) FROM PUBLIC;
    REVOKE ALL ON FUNCTION sgam_count_jobs(timestamptz, text) FROM PUBLIC;

    -- Document memory: a tenant's files under /memories. ``documents`` holds each
    -- document's current state (a deleted one stays, not live, so it can be restored);
    -- ``document_revisions`` keeps every revision with who wrote it; the chunks of live
    -- documents carry a generated tsvector (GIN) and their vectors (pgvector, searched
    -- exactly: a tenant's documents are few). Erasure deletes the document row and every
    -- revision, chunk and vector goes with it by ON DELETE CASCADE. ``kept_since`` is when
    -- the document's oldest kept revision was recorded: plus its class's ttl it is the
    -- document's next deadline, so "is any document due" is one index probe per class.
    -- Revisions are found by the episode they name when that episode is erased.
    CREATE TABLE documents (
        tenant text NOT NULL CHECK (tenant <> ''),
        doc_id bigint GENERATED ALWAYS AS IDENTITY,
        path text NOT NULL,
        live boolean NOT NULL,
        revision integer NOT NULL CHECK (revision >= 1),
        content text,
        size integer NOT NULL,
        retention text NOT NULL,
        source text,
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        kept_since timestamptz NOT NULL,
        PRIMARY KEY (tenant, doc_id),
        CHECK (live = (content IS NOT NULL))
    );
    CREATE UNIQUE INDEX documents_live_path ON documents (tenant, path) WHERE live;
    CREATE INDEX documents_by_path ON documents (tenant, path text_pattern_ops, updated_at);
    CREATE INDEX documents_by_deadline ON documents (tenant, retention, kept_since);

    CREATE TABLE document_revisions (
        tenant text NOT NULL CHECK (tenant <> ''),
        doc_id bigint NOT NULL,
        revision integer NOT NULL,
        path text NOT NULL,
        op text NOT NULL,
        content text,
        author text,
        episode text,
        call_id text,
        recorded_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, doc_id, revision),
        FOREIGN KEY (tenant, doc_id) REFERENCES documents (tenant, doc_id) ON DELETE CASCADE
    );
    CREATE INDEX document_revisions_by_path ON document_revisions (tenant, path);
    CREATE INDEX document_revisions_by_episode ON document_revisions (tenant, episode) WHERE episode IS NOT NULL;

    CREATE TABLE document_chunks (
        tenant text NOT NULL CHECK (tenant <> ''),
        chunk_id bigint GENERATED ALWAYS AS IDENTITY,
        doc_id bigint NOT NULL,
        revision integer NOT NULL,
        path text NOT NULL,
        start_line integer NOT NULL,
        end_line integer NOT NULL,
        text text NOT NULL,
        search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', translate(path, '/._-', '    ')), 'B')
            || setweight(to_tsvector('english', text), 'A')
        ) STORED,
        PRIMARY KEY (tenant, chunk_id),
        FOREIGN KEY (tenant, doc_id) REFERENCES documents (tenant, doc_id) ON DELETE CASCADE
    );
    CREATE INDEX document_chunks_by_doc ON document_chunks (tenant, doc_id);
    CREATE INDEX document_chunks_search ON document_chunks USING gin (tenant, search);

    CREATE TABLE document_vectors (
        tenant text NOT NULL CHECK (tenant <> ''),
        chunk_id bigint NOT NULL,
        model text NOT NULL,
        dims integer NOT NULL CHECK (dims > 0),
        embedding vector NOT NULL,
        PRIMARY KEY (tenant, chunk_id, model),
        FOREIGN KEY (tenant, chunk_id) REFERENCES document_chunks (tenant, chunk_id) ON DELETE CASCADE
    );
    CREATE INDEX document_vectors_by_model ON document_vectors (tenant, model, dims);

    -- The LangGraph store's current items (the ledger keeps their history) with their
    -- search text and vectors, and the action ledger of external calls made once.
    -- ``namespace`` is compared bytewise (COLLATE "C") so a prefix is an index range.
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
        thread_id text,
        PRIMARY KEY (tenant, seq),
        UNIQUE (tenant, action_key)
    );
    CREATE INDEX actions_by_status ON actions (tenant, status, seq);
    CREATE INDEX actions_by_thread ON actions (tenant, thread_id, seq) WHERE thread_id IS NOT NULL;

    -- An action made from inside a LangGraph run (or given a thread) records its thread,
    -- so a thread's page shows the external calls it began and finished.

    -- Checkpoint memory: LangGraph's checkpoints of the tenant's threads, in the ledger's
    -- database under the same row-level security (store/_sql/checkpoints.py says why a
    -- checkpoint is stored whole). A thread has a retention class and may name the subjects
    -- it is about, so that erasing a subject reaches the threads that quote it. The tenant
    -- leads every key, as everywhere. The tables are named apart from LangGraph's own
    -- PostgresSaver's (``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes``), which users
    -- may keep in the same database.
    CREATE TABLE saver_threads (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        retention text NOT NULL,
        PRIMARY KEY (tenant, thread_id)
    );

    CREATE TABLE saver_checkpoints (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        checkpoint_ns text NOT NULL,
        checkpoint_id text NOT NULL,
        parent_id text,
        run_id text,
        kind text NOT NULL,
        body bytea NOT NULL,
        metadata_kind text NOT NULL,
        metadata bytea NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id)
    );
    CREATE INDEX saver_checkpoints_by_run ON saver_checkpoints (tenant, run_id) WHERE run_id IS NOT NULL;

    CREATE TABLE saver_writes (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        checkpoint_ns text NOT NULL,
        checkpoint_id text NOT NULL,
        task_id text NOT NULL,
        idx integer NOT NULL,
        channel text NOT NULL,
        kind text NOT NULL,
        body bytea NOT NULL,
        task_path text NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    );

    CREATE TABLE saver_subjects (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        thread_id text NOT NULL,
        PRIMARY KEY (tenant, subject, thread_id)
    );
    CREATE INDEX saver_subjects_by_thread ON saver_subjects (tenant, thread_id);

    -- Lifecycle. Retention classes and the class of each episode (``episodes.retention``);
    -- derivations (summaries made from episodes); per-write deadlines
    -- (``operations.expires_at``); consent per subject and purpose ('' = every purpose);
    -- tombstones of erased episode ids (keyed digests only); an audit log without content.
    CREATE TABLE retention_classes (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        ttl bigint CHECK (ttl IS NULL OR ttl > 0),
        on_expiry text NOT NULL CHECK (on_expiry IN ('erase', 'keep_facts')),
        declared_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, name)
    );

    CREATE TABLE episode_derivations (
        tenant text NOT NULL CHECK (tenant <> ''),
        episode_id text NOT NULL,
        source_id text NOT NULL,
        PRIMARY KEY (tenant, episode_id, source_id),
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE,
        FOREIGN KEY (tenant, source_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE
    );
    CREATE INDEX episode_derivations_by_source ON episode_derivations (tenant, source_id);

    CREATE TABLE consents (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        purpose text NOT NULL,
        granted boolean NOT NULL,
        changed_at timestamptz NOT NULL,
        seq bigint NOT NULL,
        PRIMARY KEY (tenant, subject, purpose)
    );
    -- reads load the statements of subjects with a revoked one only, found here
    CREATE INDEX consents_revoked ON consents (tenant, purpose, subject) WHERE NOT granted;

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

    -- The purge serves every tenant, as the worker does, but the application role sees
    -- one tenant at a time: this owner-run function names the tenants with something past
    -- its deadline (tenant names only; the purge itself runs under each tenant's RLS). A
    -- checkpoint thread of a class with a ttl is due when its oldest checkpoint is past
    -- the ttl and it has older history to prune, or its class erases it. It reads these
    -- tables across tenants as the owner, through the read-only ``lifecycle_sweep``
    -- policy (``LIFECYCLE_TABLES``).
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
        UNION
        SELECT d.tenant FROM @SCHEMA@.documents d
        JOIN @SCHEMA@.retention_classes c ON c.tenant = d.tenant AND c.name = d.retention
        WHERE c.ttl IS NOT NULL AND d.kept_since + c.ttl * interval '1 microsecond' <= p_now
        UNION
        SELECT tenant FROM @SCHEMA@.store_items WHERE expires_at <= p_now
        UNION
        SELECT t.tenant FROM @SCHEMA@.saver_threads t
        JOIN @SCHEMA@.retention_classes c ON c.tenant = t.tenant AND c.name = t.retention
        JOIN (SELECT tenant, thread_id, min(created_at) AS first_at, count(*) AS checkpoints
              FROM @SCHEMA@.saver_checkpoints GROUP BY tenant, thread_id) k
          ON k.tenant = t.tenant AND k.thread_id = t.thread_id
        WHERE c.ttl IS NOT NULL AND k.first_at + c.ttl * interval '1 microsecond' <= p_now
          AND (k.checkpoints > 1 OR c.on_expiry = 'erase')
    $$;
    REVOKE ALL ON FUNCTION sgam_due_tenants(timestamptz) FROM PUBLIC;

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
        tenant text NOT NULL CHECK (tenant <> ''),
        key_id text NOT NULL,
        scope text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
        digest text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        PRIMARY KEY (tenant, key_id)
    );

    -- The HTTP service checks the request's API key on every request, so that a key
    -- revoked by any process fails on its very next request: this is that check in one
    -- statement, sent first in a unit of work's or a read's transaction, after the key's
    -- tenant is set there (SET LOCAL, as for every tenant's statement). It raises SQLSTATE
    -- SGK01 unless the key is there, unrevoked, with that digest of its secret, which
    -- aborts the transaction: nothing the request would write commits and nothing it
    -- would read is answered. It runs as the caller (SECURITY INVOKER: row-level security
    -- binds it, so another tenant's key is never found) and sets nothing. No SET clause (it
    -- would push and pop a setting on every call): the select is one probe of the primary key.
    CREATE FUNCTION sgam_api_key(p_tenant text, p_key_id text, p_digest text) RETURNS void
    LANGUAGE plpgsql AS $$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM @SCHEMA@.api_keys k
                       WHERE k.tenant = p_tenant AND k.key_id = p_key_id AND k.revoked_at IS NULL
                         AND k.digest = p_digest) THEN
            RAISE EXCEPTION 'missing, malformed, unknown or revoked API key' USING ERRCODE = 'SGK01';
        END IF;
    END $$;
    REVOKE ALL ON FUNCTION sgam_api_key(text, text, text) FROM PUBLIC;

    CREATE TABLE idempotency_keys (
        tenant text NOT NULL CHECK (tenant <> ''),
        idempotency_key text NOT NULL,
        request_digest text NOT NULL,
        created_at timestamptz NOT NULL,
        status integer,
        response text,
        attempt text NOT NULL DEFAULT '',
        acted_at timestamptz,
        erased_at timestamptz,
        PRIMARY KEY (tenant, idempotency_key)
    );
    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (tenant, created_at);

    -- Whether anything of the tenant is past its deadline, the probe every read and write
    -- asks first; PostgreSQL's one definition of it, which answers as the portable
    -- statement in store/_sql/lifecycle.py (the tests compare them). Run as the caller
    -- (SECURITY INVOKER: row-level security binds it as it binds the caller's own
    -- statements). Tables are named with their schema; no SET clause pins the search path
    -- (it would push and pop a setting on every call), and operators resolve in pg_catalog
    -- first. Every subquery names the bound tenant (not `= c.tenant`, a correlation a
    -- distributed planner cannot route by), and no generic plan is forced: Citus routes a
    -- statement whose tenant is a parameter only in a custom plan.
    CREATE FUNCTION sgam_lifecycle_due(p_tenant text, p_now timestamptz) RETURNS boolean
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
        RETURN EXISTS (SELECT 1 FROM @SCHEMA@.operations o
                       WHERE o.tenant = p_tenant AND o.expires_at IS NOT NULL AND o.expires_at <= p_now)
            OR EXISTS (SELECT 1 FROM @SCHEMA@.store_items s
                       WHERE s.tenant = p_tenant AND s.expires_at IS NOT NULL AND s.expires_at <= p_now)
            OR EXISTS (
                SELECT 1 FROM @SCHEMA@.retention_classes c
                WHERE c.tenant = p_tenant AND c.ttl IS NOT NULL
                  AND (p_now - c.ttl * interval '1 microsecond' >= CASE WHEN c.on_expiry = 'erase'
                          THEN (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = p_tenant AND e.retention = c.name)
                          ELSE (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = p_tenant AND e.retention = c.name AND e.lost_at IS NULL) END
                       OR p_now - c.ttl * interval '1 microsecond' >= (
                          SELECT min(d.kept_since) FROM @SCHEMA@.documents d
                          WHERE d.tenant = p_tenant AND d.retention = c.name)));
    END $$;
    REVOKE ALL ON FUNCTION sgam_lifecycle_due(text, timestamptz) FROM PUBLIC;

    -- Subjects. Subject ids are matched after normalisation (NFKC, case folding, white
    -- space collapsed); ``subject_names`` keeps the first spelling each id was given (its
    -- display name), ``subject_collisions`` stored ids left as they were because two of
    -- them fold into one id, for the operator (docs/lifecycle.md).
    CREATE TABLE subject_names (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        display text NOT NULL,
        PRIMARY KEY (tenant, subject)
    );
    CREATE TABLE subject_collisions (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        stored text NOT NULL,
        PRIMARY KEY (tenant, subject, stored)
    );

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
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        name text NOT NULL,
        subject text NOT NULL,
        recorded_at timestamptz NOT NULL,
        after_seq bigint NOT NULL,
        ended_step bigint,
        ended_at timestamptz,
        ended_after_seq bigint,
        decided_by text,
        PRIMARY KEY (tenant, seq),
        CHECK (name <> subject),
        CHECK ((ended_at IS NULL) = (ended_after_seq IS NULL) AND (ended_at IS NULL) = (ended_step IS NULL)),
        CHECK (ended_at IS NULL OR ended_at >= recorded_at)
    );
    CREATE INDEX subject_aliases_by_name ON subject_aliases (tenant, name);
    CREATE INDEX subject_aliases_by_subject ON subject_aliases (tenant, subject);
    CREATE TABLE subject_resolution (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        subject text NOT NULL,
        recorded_from timestamptz NOT NULL,
        recorded_to timestamptz,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> subject),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
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
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        kind text NOT NULL CHECK (kind IN ('rename', 'retype', 'cardinality')),
        attribute text NOT NULL,
        detail text NOT NULL,
        recorded_at timestamptz NOT NULL,
        after_seq bigint NOT NULL,
        decided_by text,
        origin text,
        PRIMARY KEY (tenant, seq)
    );
    CREATE TABLE attribute_resolution (
        tenant text NOT NULL CHECK (tenant <> ''),
        name text NOT NULL,
        attribute text NOT NULL,
        recorded_from timestamptz NOT NULL,
        recorded_to timestamptz,
        PRIMARY KEY (tenant, name, recorded_from),
        CHECK (name <> attribute),
        CHECK (recorded_to IS NULL OR recorded_to > recorded_from)
    );
    CREATE TABLE quarantine (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        subject text NOT NULL,
        attribute text NOT NULL,
        value text NOT NULL,
        since timestamptz NOT NULL,
        PRIMARY KEY (tenant, seq)
    );
    CREATE INDEX quarantine_by_attribute ON quarantine (tenant, attribute, subject);

    -- What a new version of a typed memory type made of each stored value. Its conversion
    -- function is Python the database does not have, so its outcome for each operation it
    -- changed is kept: ``value`` the converted value's canonical JSON, or ``reason`` why
    -- the operation was set aside. Re-deriving the attribute later reads these instead of
    -- calling the function. ``step`` is the change's ``seq``; an operation's rows die with
    -- it (``ON DELETE CASCADE``), so erasure and expiry reach them like the operation itself.
    CREATE TABLE converted_values (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        step bigint NOT NULL,
        value text,
        reason text,
        PRIMARY KEY (tenant, seq, step),
        FOREIGN KEY (tenant, seq) REFERENCES operations (tenant, seq) ON DELETE CASCADE,
        CHECK ((value IS NULL) <> (reason IS NULL))
    );

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
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        attributes text NOT NULL,
        after_subject text,
        subjects_done bigint NOT NULL DEFAULT 0,
        subjects_total bigint NOT NULL,
        batches_done bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        conversion text,
        screened_at timestamptz,
        PRIMARY KEY (tenant, seq)
    );
    CREATE TABLE backfill_holdouts (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        subject text NOT NULL,
        PRIMARY KEY (tenant, seq, subject)
    );

    -- Re-embedding builds a new embedder's vectors beside the old ones (episode, assertion
    -- and document vectors are keyed by model) and switches search to them once every
    -- episode, current fact and document chunk has one (``search/reembedding.py``). Per
    -- tenant, the embedder search uses (``active``: NULL means the embedder each process
    -- is configured with) and the one being built, each with the spec a process loads it
    -- by (NULL for an embedder given as an object).
    CREATE TABLE search_embedders (
        tenant text NOT NULL PRIMARY KEY CHECK (tenant <> ''),
        active text,
        active_spec text,
        building text,
        building_spec text,
        building_since timestamptz,
        switched_at timestamptz,
        CHECK (building IS NULL OR building_since IS NOT NULL)
    );
    """
