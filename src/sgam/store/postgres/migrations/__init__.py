"""PostgreSQL schema as a baseline (version 18 in one go) and the migrations after it,
applied under an advisory lock.

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import sql

from ..._migrations import Migrations
from . import baseline, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32, v33, v34

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
    "backfills", "search_embedders", "backfill_holdouts",
)
"""Every table holding tenant rows; each gets the same RLS policy and the app grants."""

WORKER_FUNCTIONS = (
    "sgam_claim_jobs(text, timestamptz, timestamptz, integer, text)",
    "sgam_count_jobs(timestamptz, text)",
)
"""The only cross-tenant entry points: the extraction worker's queue (the baseline)."""

INDEX_FUNCTIONS = ("sgam_vector_index(integer)",)
"""Owner-run DDL the app role may trigger: the HNSW index of a new dimension (the baseline)."""

SEARCH_FUNCTIONS = (
    "sgam_keyword_episodes(text[], integer, timestamptz, timestamptz, text, text, text, text, timestamptz)",
)
"""Owner-run full-text search of the caller's tenant (the baseline): under the app role's
policy the planner may not use the GIN index for ``@@``, which is not leakproof."""

LIFECYCLE_FUNCTIONS = ("sgam_due_tenants(timestamptz)",)
"""The purge's cross-tenant entry point: which tenants have something due (the baseline,
and the module v24, which adds checkpoint threads)."""
LIFECYCLE_TABLES = (
    "operations", "episodes", "retention_classes", "documents", "store_items", "saver_threads", "saver_checkpoints",
)
"""Tables ``sgam_due_tenants`` reads across tenants, as the owner, through a read-only policy."""

READ_FUNCTIONS = (
    "sgam_lifecycle_due(text, timestamptz)",
    "sgam_checkpoint_with_writes(text, text, text, text)",
    "sgam_api_key(text, text, text)",
)
"""Run as the caller, under its tenant policy: the deadline probe (the baseline); a
checkpoint with its pending writes (module v26); an API key's row (module v30)."""

WRITE_FUNCTIONS = (
    "sgam_put_checkpoint(text, text, text, text, text, text, text, bytea, text, bytea, timestamptz, text, text[])",
    "sgam_put_writes(text, text, text, text, text, text, integer[], text[], text[], bytea[])",
)
"""Run as the caller: a checkpoint put, and a task's pending writes, each in one statement
with its tenant (module v26)."""

MIGRATIONS = Migrations(
    baseline.VERSION,
    tuple(version.SCRIPT for version in (
        baseline, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32, v33, v34,
    )),
    baseline.SQUASHED,
)
"""The baseline, then version N in module ``vNN``; a new version is a new module, listed last."""

PROGRAMS: dict[int, Callable[[psycopg.Connection[Any]], None]] = {21: v21.run}
"""Versions whose data change needs Python (Unicode case folding), run after their script."""


def rls_statements(tables: Sequence[str] = TENANT_TABLES) -> list[sql.SQL | sql.Composed]:
    """ENABLE and FORCE row-level security with one tenant policy per table; re-run after
    every migration so a table added later cannot be left open. ``tables``: the tenant
    tables the applied versions created (all of them once the schema is current)."""
    statements: list[sql.SQL | sql.Composed] = []
    for table in tables:
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
        sql.SQL("DROP POLICY IF EXISTS search_owner ON episodes"),
        sql.SQL("CREATE POLICY search_owner ON episodes FOR SELECT TO CURRENT_USER USING (true)"),
    ]
    if "episode_counts" in tables:
        statements += [
            sql.SQL("DROP POLICY IF EXISTS search_owner ON episode_counts"),
            sql.SQL("CREATE POLICY search_owner ON episode_counts FOR SELECT TO CURRENT_USER USING (true)"),
        ]
    for table in (t for t in LIFECYCLE_TABLES if t in tables):
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


def grant_statements(
    role: str, schema: str, present: Sequence[str] = TENANT_TABLES, functions: Sequence[str] | None = None,
) -> list[sql.Composed]:
    """What the application role may do: DML on tenant tables, read the version table,
    execute ``functions`` (default: every one the current version has). It owns nothing,
    so RLS applies to it and it cannot alter a policy."""
    who = sql.Identifier(role)
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in present)
    return [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), who),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(tables, who),
        sql.SQL("GRANT SELECT ON sgam_migrations TO {}").format(who),
        sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(sql.Identifier(schema), who),
        *(sql.SQL("GRANT EXECUTE ON FUNCTION {}.{} TO {}").format(sql.Identifier(schema), sql.SQL(f), who)
          for f in (app_functions() if functions is None else functions)),
    ]


def app_functions() -> tuple[str, ...]:
    """Every function the application role may execute, as the lists stand now (tests of
    old layouts narrow them)."""
    return (*WORKER_FUNCTIONS, *INDEX_FUNCTIONS, *SEARCH_FUNCTIONS, *LIFECYCLE_FUNCTIONS, *READ_FUNCTIONS,
            *WRITE_FUNCTIONS)
