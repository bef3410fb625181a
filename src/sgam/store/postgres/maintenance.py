"""Owner-run maintenance: ``compact`` rewrites every table that holds tenant rows so the
erased bytes leave PostgreSQL's table and index files.

An erasure's rows vanish from every snapshot when it commits, but their bytes stay as dead
tuples; plain ``VACUUM`` only marks that space reusable, so most of it stays readable on
disk until new rows overwrite it. ``VACUUM FULL`` writes each table and its indexes
(TOAST included) anew and unlinks the old files. It needs the owner (or MAINTAIN) and
holds an ACCESS EXCLUSIVE lock on each table while it is rewritten, so it is an operator's
command, never run per erasure. docs/postgres.md says what each clean-up removes.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from ..._core.errors import StoreError
from .distribute import distributed_tables
from .errors import map_postgres_errors
from .migrations import TENANT_TABLES

STATISTICS = "pg_statistic"
"""The planner's statistics, a catalog of the database: ANALYZE (autovacuum's, whenever a
table has changed enough) stores a sample of each column's values there (most common
values, histogram bounds), so erased values can be in it; each new ANALYZE of a table
replaces its rows and leaves the old ones as dead tuples in the catalog's own file."""


def compact(owner_url: str) -> list[str]:
    """``VACUUM (FULL, ANALYZE)`` each tenant table, one at a time (each its own
    transaction, so the lock is held for one table only), then ``VACUUM FULL`` of
    ``pg_statistic``, whose dead rows those ANALYZEs (and autovacuum's earlier ones) left;
    returns the tables rewritten. The tables are those row-level security guards
    (``TENANT_TABLES``): every table that can hold what an erasure or expiry removes is a
    tenant table, and a list kept apart from that one would miss the next table added. A
    table's indexes (the LangGraph items' search index among them) are rewritten with it.
    A role that may not rewrite ``pg_statistic`` (PostgreSQL only skips it, with a
    warning) is refused before anything is rewritten."""
    done: list[str] = []
    with map_postgres_errors(), psycopg.connect(owner_url, autocommit=True) as conn:
        _check_may_rewrite_statistics(conn)
        for table in TENANT_TABLES:
            found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
            if found and found[0]:
                conn.execute(sql.SQL("VACUUM (FULL, ANALYZE) {}").format(sql.Identifier(table)))
                done.append(table)
        _clear_emptied(conn, done)
        conn.execute(sql.SQL("VACUUM FULL {}").format(sql.Identifier("pg_catalog", STATISTICS)))
        if distributed_tables(conn):
            _on_workers(conn, done)
        done.append(STATISTICS)
    return done


_EMPTIED_SHARDS = (
    "SELECT count(pg_clear_attribute_stats(s.schemaname::text, s.tablename::text, s.attname::text, s.inherited)) "
    "FROM pg_stats s JOIN pg_namespace n ON n.nspname = s.schemaname "
    "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename "
    "WHERE s.schemaname = {schema} AND c.reltuples = 0 AND regexp_replace(s.tablename, '_[0-9]+$', '') = ANY({tables})"
)
"""On a worker: clear the statistics of the shards (``table_102008``) of ``tables`` left
with no rows, as ``_clear_emptied`` does for a table of one server."""


def _on_workers(conn: psycopg.Connection[Any], tables: list[str]) -> None:
    """On Citus the rows, and the statistics sampled from them, are the workers': the
    coordinator's ``VACUUM (FULL, ANALYZE)`` of a distributed table rewrites its shards
    there, but each worker's ``pg_statistic`` (and the samples of emptied shards) is its
    own, so the same clean-up runs on every worker."""
    schema = conn.execute("SELECT current_schema()").fetchone()
    assert schema is not None
    emptied = sql.SQL(_EMPTIED_SHARDS).format(schema=sql.Literal(schema[0]), tables=sql.Literal(tables))
    for command in (emptied.as_string(conn), f"VACUUM FULL pg_catalog.{STATISTICS}"):
        for node, port, success, result in conn.execute(
                "SELECT nodename, nodeport, success, result FROM run_command_on_workers(%s)", (command,)).fetchall():
            if not success:
                raise StoreError(f"sgam compact could not clean up on the worker {node}:{port}: {result}",
                                 field="db", value=f"{node}:{port}")


def _clear_emptied(conn: psycopg.Connection[Any], tables: list[str]) -> None:
    """Clear the statistics of each of ``tables`` left with no rows: ANALYZE of a table
    whose sample is empty keeps the statistics it had, samples of values since erased
    included. ``pg_clear_attribute_stats`` is PostgreSQL 18's; before it, only a
    superuser could delete them, and they stay until the table has rows to analyze."""
    if conn.info.server_version < 180000:
        return
    empty = conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.oid = ANY(%s::regclass[]) AND c.reltuples = 0", (tables,)).fetchall()
    for schema, table in empty:
        for column, inherited in conn.execute(
                "SELECT attname, inherited FROM pg_stats WHERE schemaname = %s AND tablename = %s",
                (schema, table)).fetchall():
            conn.execute("SELECT pg_clear_attribute_stats(%s, %s, %s, %s)", (schema, table, column, inherited))


def _check_may_rewrite_statistics(conn: psycopg.Connection[Any]) -> None:
    """The database's owner (or a superuser, or from PostgreSQL 17 a role with MAINTAIN on
    it, such as ``pg_maintain``'s members) may vacuum ``pg_statistic``; the owner of the
    sgam tables alone may not."""
    maintain = (" OR has_table_privilege('pg_catalog.pg_statistic', 'MAINTAIN')"
                if conn.info.server_version >= 170000 else "")
    row = conn.execute(f"SELECT current_user, pg_has_role(datdba, 'USAGE'){maintain} FROM pg_database "
                       "WHERE datname = current_database()").fetchone()
    if row is None or not row[1]:
        role = None if row is None else row[0]
        raise StoreError(
            f"sgam compact must also rewrite {STATISTICS}, where ANALYZE keeps samples of column values "
            f"(erased ones included), and the role {role} may not: run it as the database's owner or as a "
            "role with MAINTAIN on pg_catalog.pg_statistic (PostgreSQL 17: a member of pg_maintain)",
            field="db", value=role)
