"""PostgreSQL schema: the baseline (version 1) and the versions after it, applied under
an advisory lock.

Every table carries ``tenant`` first in its primary key, unique constraints and foreign
keys, so the schema can be distributed by tenant on Citus without change. Times are
``timestamptz`` (microsecond precision, the protocol's resolution). Values are kept as
the canonical JSON text the rules compare (``value``) with a generated ``jsonb`` copy
for SQL users: jsonb rewrites numbers (``1e+20`` comes back as ``100000000000000000000``),
so the text, not the jsonb, is the authority.

The database guards the ledger's invariants itself: CHECKs forbid empty intervals, a
partial unique index allows one current version per key start (a version ends, at the
latest, where the next one starts: see the baseline), a trigger refuses a current version
stored to run past the next one's start, and another makes retired versions immutable.
Row-level security (``ENABLE`` and ``FORCE``) on every table admits only rows of the
tenant set for the transaction in ``sgam.tenant``.

Adding the next version: write a module ``vN.py`` (N the latest version plus one) with a
docstring saying what changes and why, and ``SCRIPT``, the SQL that takes a database of
version N - 1 to N (existing rows included: it runs on databases in use; ``@SCHEMA@`` and
``@SCHEMA_LITERAL@`` name the installing schema); list it last in ``MIGRATIONS`` below; add
a new tenant table to ``TENANT_TABLES`` and a function the application role calls to the
list of its kind; do the same on SQLite; run ``make schema`` and review the diff of
``schema.txt``. Never edit an applied version (the baseline included): databases record
each script's checksum and refuse one that changed.
"""

from __future__ import annotations

from psycopg import sql

from ..._migrations import Migrations
from . import baseline

MIGRATION_LOCK = 0x5367616D  # "Sgam": the advisory lock key that serialises migrations

TENANT_TABLES = (
    "tenant_schema", "attribute_schemas", "memory_types", "episodes", "operations",
    "assertions", "extractions", "held_candidates", "extraction_jobs",
    "ledger_keys", "episode_vectors", "assertion_vectors",
    "documents", "document_revisions", "document_chunks", "document_vectors", "store_items", "actions",
    "retention_classes", "episode_derivations", "consents", "tombstones", "audit_log",
    "api_keys", "idempotency_keys", "ledger_key_terms", "episode_counts",
    "episode_vector_heads", "saver_threads", "saver_checkpoints", "saver_writes", "saver_subjects",
    "subject_names", "subject_collisions", "subject_aliases", "subject_resolution",
    "ledger_changes", "attribute_resolution", "quarantine", "episode_vector_counts", "converted_values",
    "backfills", "search_embedders", "backfill_holdouts", "tenant_counters",
)
"""Every table holding tenant rows; each gets the same RLS policy and the app grants."""

WORKER_FUNCTIONS = (
    "sgam_claim_jobs(text, timestamptz, timestamptz, integer, text)",
    "sgam_count_jobs(timestamptz, text)",
)
"""The only cross-tenant entry points: the extraction worker's queue."""

INDEX_FUNCTIONS = ("sgam_vector_index(integer)",)
"""Owner-run DDL the app role may trigger: the HNSW index of a new dimension."""

SEARCH_FUNCTIONS = (
    "sgam_keyword_episodes(text[], integer, timestamptz, timestamptz, text, text, text, text, timestamptz)",
)
"""Owner-run full-text search of the caller's tenant: under the app role's
policy the planner may not use the GIN index for ``@@``, which is not leakproof."""

LIFECYCLE_FUNCTIONS = ("sgam_due_tenants(timestamptz)",)
"""The purge's cross-tenant entry point: which tenants have something due."""
LIFECYCLE_TABLES = (
    "operations", "episodes", "retention_classes", "documents", "store_items", "saver_threads", "saver_checkpoints",
)
"""Tables ``sgam_due_tenants`` reads across tenants, as the owner, through a read-only policy."""

READ_FUNCTIONS = (
    "sgam_lifecycle_due(text, timestamptz)",
    "sgam_api_key(text, text, text)",
)
"""Run as the caller, under the tenant policy of the tenant it set: the deadline probe,
an API key's check."""

MIGRATIONS = Migrations(tuple(version.SCRIPT for version in (baseline,)))
"""Version 1 (the baseline), then version N in module ``vN``, listed in order."""


def rls_statements() -> list[sql.SQL | sql.Composed]:
    """ENABLE and FORCE row-level security with one tenant policy per table; re-run after
    every migration so a table added later cannot be left open."""
    statements: list[sql.SQL | sql.Composed] = []
    for table in TENANT_TABLES:
        name = sql.Identifier(table)
        statements += [
            sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name),
            sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(name),
            sql.SQL("DROP POLICY IF EXISTS tenant_isolation ON {}").format(name),
            sql.SQL(
                "CREATE POLICY tenant_isolation ON {} "
                "USING (tenant = current_setting('sgam.tenant', true)) "
                "WITH CHECK (tenant = current_setting('sgam.tenant', true))"
            ).format(name),
        ]
    statements += [
        sql.SQL("DROP POLICY IF EXISTS jobs_worker ON extraction_jobs"),
        sql.SQL("CREATE POLICY jobs_worker ON extraction_jobs TO CURRENT_USER USING (true) WITH CHECK (true)"),
    ]
    for table in ("episodes", "episode_counts"):
        name = sql.Identifier(table)
        statements += [
            sql.SQL("DROP POLICY IF EXISTS search_owner ON {}").format(name),
            sql.SQL("CREATE POLICY search_owner ON {} FOR SELECT TO CURRENT_USER USING (true)").format(name),
        ]
    for table in LIFECYCLE_TABLES:
        name = sql.Identifier(table)
        statements += [
            sql.SQL("DROP POLICY IF EXISTS lifecycle_sweep ON {}").format(name),
            sql.SQL("CREATE POLICY lifecycle_sweep ON {} FOR SELECT TO CURRENT_USER USING (true)").format(name),
        ]
    migrations = sql.Identifier("sgam_migrations")
    statements += [
        sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(migrations),
        sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(migrations),
        sql.SQL("DROP POLICY IF EXISTS readable ON {}").format(migrations),
        sql.SQL("CREATE POLICY readable ON {} FOR SELECT USING (true)").format(migrations),
    ]
    return statements


def grant_statements(role: str, schema: str) -> list[sql.Composed]:
    """What the application role may do: DML on tenant tables, read the version table,
    execute the functions listed above. It owns nothing, so RLS applies to it and it
    cannot alter a policy."""
    who = sql.Identifier(role)
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in TENANT_TABLES)
    functions = (*WORKER_FUNCTIONS, *INDEX_FUNCTIONS, *SEARCH_FUNCTIONS, *LIFECYCLE_FUNCTIONS, *READ_FUNCTIONS)
    return [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), who),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(tables, who),
        sql.SQL("GRANT SELECT ON sgam_migrations TO {}").format(who),
        sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(sql.Identifier(schema), who),
        *(sql.SQL("GRANT EXECUTE ON FUNCTION {}.{} TO {}").format(sql.Identifier(schema), sql.SQL(f), who)
          for f in functions),
    ]
