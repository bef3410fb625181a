"""Spread the schema over a Citus cluster: what ``sgam migrate --distributed`` adds.

Every tenant table is hash-distributed by ``tenant`` and colocated with ``episodes``, so a
tenant's rows of every table live on one worker and a unit of work that names its tenant
runs there whole (joins, foreign keys and triggers stay local to a shard group). The two
small global tables (``sgam_migrations``, ``vector_dimensions``) become reference tables,
copied to every node. Tables already distributed are left as they are, so the call is
idempotent and also distributes the tables a later migration creates.

Row-level security follows the tables: Citus copies ``ENABLE``/``FORCE`` and the policies
onto every shard, and the tenant the coordinator sets with ``SET LOCAL`` reaches the
workers because the database's ``citus.propagate_set_commands`` is ``local``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from ..._core.errors import ValidationError
from .._sql.dialect import CITUS, POSTGRES, Dialect
from . import distributed_triggers

DISTRIBUTION_COLUMN = "tenant"
COLOCATION_ANCHOR = "episodes"
REFERENCE_TABLES = ("sgam_migrations", "vector_dimensions")
"""The global tables: a few rows each, read by every node."""

DATABASE_SETTINGS = (("citus.propagate_set_commands", "local"), ("citus.enable_unsafe_triggers", "on"))
"""Set on the database so every session has them: ``SET LOCAL sgam.tenant`` inside a
transaction is sent on to the workers, whose shards' policies read it; the row triggers
that guard the ledger (one current version per key start, immutable retired rows) run
on each shard, where a tenant's rows all are."""


def dialect_of(conn: psycopg.Connection[Any]) -> Dialect:
    """The database's dialect: ``CITUS`` for a Citus coordinator, else ``POSTGRES``."""
    return CITUS if has_citus(conn) else POSTGRES


def has_citus(conn: psycopg.Connection[Any]) -> bool:
    """Whether the database has the ``citus`` extension (a coordinator, or a worker)."""
    row = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone()
    return row is not None


def require_citus(conn: psycopg.Connection[Any], where: str) -> None:
    """Refuse ``--distributed`` on a server that cannot distribute, before anything changes."""
    if not has_citus(conn):
        raise ValidationError(
            "distributed", where,
            "needs a Citus coordinator: this database has no citus extension "
            "(CREATE EXTENSION citus and add the workers with citus_add_node first)")


def distributed_tables(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """The tables of the current schema Citus already manages, by name: ``h`` for hash
    distributed, ``n`` for reference tables. Empty without the extension."""
    if not has_citus(conn):
        return {}
    rows = conn.execute(
        "SELECT c.relname, p.partmethod FROM pg_dist_partition p "
        "JOIN pg_class c ON c.oid = p.logicalrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()").fetchall()
    return {str(name): str(method) for name, method in rows}


def distribute(conn: psycopg.Connection[Any], tenant_tables: Sequence[str]) -> list[str]:
    """Distribute what is not distributed yet; return the tables this call changed.

    Runs in the caller's transaction. A table is distributed only after every table its
    foreign keys reference (Citus requires the referenced side first)."""
    done = distributed_tables(conn)
    changed: list[str] = []
    conn.execute("SET LOCAL citus.enable_unsafe_triggers = on")
    for table in REFERENCE_TABLES:
        if table not in done and _exists(conn, table):
            conn.execute("SELECT create_reference_table(%s)", (table,))
            changed.append(table)
    references = _references(conn, tenant_tables)
    pending = [t for t in (COLOCATION_ANCHOR, *tenant_tables) if t not in done]
    pending = list(dict.fromkeys(pending))
    while pending:
        ready = [t for t in pending if all(r in done or r == t for r in references.get(t, ()))]
        if not ready:
            raise ValidationError("distributed", pending, "foreign keys among these tables form a cycle")
        table = ready[0]
        colocate = "none" if table == COLOCATION_ANCHOR else COLOCATION_ANCHOR
        conn.execute("SELECT create_distributed_table(%s, %s, colocate_with => %s)",
                     (table, DISTRIBUTION_COLUMN, colocate))
        done[table] = "h"
        changed.append(table)
        pending.remove(table)
    return changed


def install_triggers(conn: psycopg.Connection[Any]) -> None:
    """(Re)install the statement triggers' distributed versions (``distributed_triggers.py``):
    after every migration, which may have replaced them, in a transaction of its own (Citus
    propagates a function over one connection per node, which the distribution's parallel
    shard creation has not left)."""
    conn.execute(distributed_triggers.SCRIPT)


def database_settings(conn: psycopg.Connection[Any]) -> None:
    """Give every future session of this database the settings a distributed store needs."""
    name = conn.execute("SELECT current_database()").fetchone()
    assert name is not None
    for setting, value in DATABASE_SETTINGS:
        conn.execute(sql.SQL("ALTER DATABASE {} SET {} = {}").format(
            sql.Identifier(str(name[0])), sql.Identifier(*setting.split(".")), sql.Literal(value)))


def _exists(conn: psycopg.Connection[Any], table: str) -> bool:
    row = conn.execute("SELECT to_regclass(quote_ident(%s)) IS NOT NULL", (table,)).fetchone()
    return bool(row and row[0])


def _references(conn: psycopg.Connection[Any], tables: Sequence[str]) -> dict[str, set[str]]:
    """For each table, the other tables of ``tables`` its foreign keys reference."""
    rows = conn.execute(
        "SELECT src.relname, dst.relname FROM pg_constraint k "
        "JOIN pg_class src ON src.oid = k.conrelid JOIN pg_class dst ON dst.oid = k.confrelid "
        "JOIN pg_namespace n ON n.oid = src.relnamespace "
        "WHERE k.contype = 'f' AND n.nspname = current_schema() AND src.relname = ANY(%s)",
        (list(tables),)).fetchall()
    found: dict[str, set[str]] = {}
    for source, target in rows:
        found.setdefault(str(source), set()).add(str(target))
    return found
