"""The checked-in schema of each backend (``store/<backend>/migrations/schema.txt``) is
what migrating an empty database from version zero gives, exactly.

After adding a migration, regenerate both files and review their diff with the
migration: ``make schema`` (``SGAM_WRITE_SCHEMA=1 pytest tests/store/test_schema_snapshot.py``),
which writes them instead of comparing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql
from tests.conftest import PostgresUrls

from sgam.store.postgres import catalog as postgres_catalog
from sgam.store.postgres import migrate
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from sgam.store.sqlite import catalog as sqlite_catalog
from sgam.store.sqlite.backend import SQLiteBackend
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

STORE = Path(__file__).resolve().parents[2] / "src" / "sgam" / "store"
SQLITE_SNAPSHOT = STORE / "sqlite" / "migrations" / "schema.txt"
POSTGRES_SNAPSHOT = STORE / "postgres" / "migrations" / "schema.txt"
POSTGRES_MAJOR = 18
"""The server the snapshot is written from (the embedded one the tests start); catalog
functions print some definitions differently across major versions."""
REGENERATE = "make schema"
WRITE = bool(os.environ.get("SGAM_WRITE_SCHEMA"))


def _header(dialect: str, version: int) -> str:
    return (f"# The sgam schema on {dialect} at migration {version}, as migrating an empty database gives it.\n"
            f"# Written by `{REGENERATE}` (tests/store/test_schema_snapshot.py); do not edit by hand.\n")


def _check(snapshot: Path, text: str) -> None:
    if WRITE:
        snapshot.write_text(text)
        return
    assert snapshot.read_text() == text, (
        f"{snapshot.relative_to(STORE.parents[2])} is not what the migrations give: run `{REGENERATE}` "
        "and review its diff with the migration")


def sqlite_schema(path: Path) -> str:
    SQLiteBackend(str(path)).close()
    with closing(sqlite3.connect(path)) as conn:
        return _header("SQLite", SQLITE_MIGRATIONS.latest) + sqlite_catalog.describe(conn)


def test_sqlite_migrations_from_zero_give_the_checked_in_schema(tmp_path: Path) -> None:
    _check(SQLITE_SNAPSHOT, sqlite_schema(tmp_path / "fresh.db"))


@pytest.fixture
def empty_database(postgres_urls: PostgresUrls) -> Iterator[str]:
    """A database with nothing in it, on the session's server, as its admin."""
    name = "sgam_test_schema_snapshot"
    server = postgres_urls.server_admin
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    login = urlsplit(server)
    try:
        yield with_login(server, login.username or "postgres", login.password, name)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_postgres_migrations_from_zero_give_the_checked_in_schema(empty_database: str) -> None:
    migrate(empty_database)
    with psycopg.connect(empty_database, autocommit=True) as conn:
        if conn.info.server_version // 10000 != POSTGRES_MAJOR:
            pytest.skip(f"the snapshot is written from PostgreSQL {POSTGRES_MAJOR}")
        text = postgres_catalog.describe(conn)
    _check(POSTGRES_SNAPSHOT, _header("PostgreSQL", POSTGRES_MIGRATIONS.latest) + text)
