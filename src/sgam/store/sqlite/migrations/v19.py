"""SQLite schema: a tenant's vectors of several embedders side by side, and which one
search uses."""

# Re-embedding builds a new embedder's vectors beside the old ones and switches search
# to them once every episode, current fact and document chunk has one
# (``search/reembedding.py``). Until now an episode or an assertion row held one vector
# (keyed by its row), so a second model's vector replaced the first: both tables are
# rebuilt keyed by (row, model), as document vectors already were.
# - ``search_embedders``: per tenant, the embedder search uses (``active``: NULL means
#   the embedder each process is configured with, as before this version) and the one
#   being built, each with the spec a process loads it by (NULL for an embedder given as
#   an object: only processes that were given it can use it).
# Triggers that name the rebuilt tables (the episodes' and assertions' deletes) keep
# their text: the rename runs with ``legacy_alter_table`` so SQLite does not re-check
# them while the table they name is briefly absent. Depends on versions 2 and 15 (the
# vector tables, the episodes' triggers) as on later versions.

SCRIPT = """
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

    PRAGMA legacy_alter_table = ON;

    CREATE TABLE episode_vectors_by_model (
        seq INTEGER NOT NULL,
        model TEXT NOT NULL,
        tenant TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (seq, model)
    );
    INSERT INTO episode_vectors_by_model (seq, model, tenant, vector)
        SELECT seq, model, tenant, vector FROM episode_vectors ORDER BY seq;
    DROP TABLE episode_vectors;
    ALTER TABLE episode_vectors_by_model RENAME TO episode_vectors;
    CREATE INDEX episode_vectors_by_tenant ON episode_vectors (tenant, model, seq);
    CREATE TRIGGER episode_vectors_insert AFTER INSERT ON episode_vectors BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (NEW.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;
    CREATE TRIGGER episode_vectors_delete AFTER DELETE ON episode_vectors BEGIN
        INSERT INTO search_generation (tenant, generation) VALUES (OLD.tenant, 1)
            ON CONFLICT (tenant) DO UPDATE SET generation = generation + 1;
    END;

    CREATE TABLE assertion_vectors_by_model (
        row_id INTEGER NOT NULL,
        model TEXT NOT NULL,
        tenant TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (row_id, model)
    );
    INSERT INTO assertion_vectors_by_model (row_id, model, tenant, vector)
        SELECT row_id, model, tenant, vector FROM assertion_vectors ORDER BY row_id;
    DROP TABLE assertion_vectors;
    ALTER TABLE assertion_vectors_by_model RENAME TO assertion_vectors;
    CREATE INDEX assertion_vectors_by_tenant ON assertion_vectors (tenant, model);

    PRAGMA legacy_alter_table = OFF;
"""
