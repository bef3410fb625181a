"""Install and upgrade the schema: ``migrate`` (what ``sgam migrate --db URL`` runs) and
``temporary_database`` (a fresh, safe store for replays and tests).

Migrations run as the owner (admin) role, never as the application role: the app role
owns no table, so row-level security binds it. They are applied in order (a new
database gets the baseline, version 1, then the versions after it: ``store/_migrations.py``), each in
the same transaction as its ``sgam_migrations`` row (with the script's checksum, compared on
every open: ``store/_migration_checksums.py``), under a transaction-level advisory lock
so concurrent starters cannot apply one twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from psycopg import sql

from ..._core.errors import ValidationError
from .._migration_checksums import checksum, verify
from .connect import connect
from .distribute import database_settings, distribute, distributed_tables, install_triggers, require_citus
from .errors import map_postgres_errors
from .migrations import (
    MIGRATION_LOCK,
    MIGRATIONS,
    TENANT_TABLES,
    grant_statements,
    rls_statements,
)

_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS sgam_migrations "
    "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)"
)


def installed_version(conn: psycopg.Connection[Any]) -> int:
    """The schema version recorded in the database; 0 when sgam was never installed."""
    row = conn.execute("SELECT to_regclass('sgam_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM sgam_migrations").fetchone()
    return int(found[0]) if found else 0


def verify_checksums(conn: psycopg.Connection[Any], where: str) -> None:
    """Compare the recorded checksum of every applied migration with this sgam's (an
    edited one raises ``SchemaVersionError`` naming its version). Any role that may read
    the version table can ask."""
    rows = conn.execute("SELECT version, checksum FROM sgam_migrations").fetchall()
    verify([(int(version), digest) for version, digest in rows], MIGRATIONS, where)


def migrate(url: str, grant_to: Iterable[str] = (), vector_dimensions: Iterable[int] = (),
            distributed: bool = False) -> int:
    """Apply missing migrations as the owner at ``url``, (re)install the RLS policies,
    grant DML to the application roles ``grant_to``, allow HNSW indexes for the embedding
    ``vector_dimensions`` (1 to 2000) of the embedders in use; return the schema version.

    ``distributed``: ``url`` is a Citus coordinator; distribute the tables by tenant
    (``distribute.py``). A database whose tables are distributed already stays so without
    it: the tables a new version adds are distributed too."""
    dimensions = list(vector_dimensions)
    for dims in dimensions:
        if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= 2000:
            raise ValidationError("vector_dimensions", dims, "must be integers from 1 to 2000")
    with map_postgres_errors(), connect(url, autocommit=True) as conn:
        if distributed:
            require_citus(conn, _redacted(url))
        distributed = distributed or bool(distributed_tables(conn))
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            current = installed_version(conn)
            MIGRATIONS.check(current, _redacted(url))
            conn.execute(_VERSION_TABLE)
            verify_checksums(conn, _redacted(url))
            schema_row = conn.execute("SELECT current_schema()").fetchone()
            assert schema_row is not None
            schema = str(schema_row[0])
            if current < MIGRATIONS.latest:
                _unforce(conn)
            for version, script in MIGRATIONS.pending(current):
                conn.execute(script.replace("@SCHEMA@", sql.Identifier(schema).as_string(conn))
                             .replace("@SCHEMA_LITERAL@", sql.Literal(schema).as_string(conn)))
                conn.execute("INSERT INTO sgam_migrations (version, checksum) VALUES (%s, %s)",
                             (version, checksum(script)))
            for statement in rls_statements():
                conn.execute(statement)
            for role in grant_to:
                for statement in grant_statements(role, schema):
                    conn.execute(statement)
            for dims in dimensions:
                conn.execute("INSERT INTO vector_dimensions (dims) VALUES (%s) ON CONFLICT DO NOTHING", (dims,))
        if distributed:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                distribute(conn, TENANT_TABLES)
                database_settings(conn)
            with conn.transaction():
                install_triggers(conn)
        for dims in dimensions:  # now, not inside the first write: Citus runs no DDL after a write
            conn.execute("SELECT sgam_vector_index(%s::integer)", (dims,))
        return MIGRATIONS.latest


def _unforce(conn: psycopg.Connection[Any]) -> None:
    """FORCE row-level security binds the owner too: lift it while migrations run, so a
    backfill sees every tenant and the version row can be inserted. ``rls_statements``
    forces it again before this transaction commits; nobody sees the gap."""
    for table in (*TENANT_TABLES, "sgam_migrations"):
        conn.execute(sql.SQL("ALTER TABLE IF EXISTS {} NO FORCE ROW LEVEL SECURITY").format(sql.Identifier(table)))


def with_login(url: str, user: str, password: str | None, dbname: str | None = None) -> str:
    """``url`` with another user (and database); keeps host, port and query (socket dir)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    auth = quote(user, safe="") + ("" if password is None else ":" + quote(password, safe=""))
    path = parts.path if dbname is None else "/" + quote(dbname, safe="")
    return urlunsplit((parts.scheme, f"{auth}@{host}", path, parts.query, parts.fragment))


@contextmanager
def temporary_database(admin_url: str) -> Iterator[str]:
    """A new database with the schema installed and a new login role that owns nothing;
    yields that role's URL and drops both afterwards. ``admin_url`` needs CREATEDB and
    CREATEROLE."""
    if not admin_url.startswith(("postgresql://", "postgres://")):
        raise ValidationError("db", admin_url, "must be a postgresql:// URL")
    token = secrets.token_hex(6)
    name, role, password = f"sgam_tmp_{token}", f"sgam_tmp_app_{token}", secrets.token_urlsafe(18)
    with map_postgres_errors(), connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        admin.execute(
            sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE PASSWORD {}")
            .format(sql.Identifier(role), sql.Literal(password))
        )
    try:
        migrate(with_login(admin_url, *_credentials(admin_url), dbname=name), grant_to=[role])
        yield with_login(admin_url, role, password, dbname=name)
    finally:
        with map_postgres_errors(), connect(admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _credentials(url: str) -> tuple[str, str | None]:
    parts = urlsplit(url)
    return parts.username or "postgres", parts.password


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
