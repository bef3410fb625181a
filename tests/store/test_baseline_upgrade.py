"""A store written by the sgam whose schema was SQLite version 10 and PostgreSQL version
18 (the versions the baseline scripts fold in) opens with this sgam: it upgrades, reads
what was written, takes writes and erasures, keeps the old versions' checksums, and ends
with the schema a new database gets (``schema.txt``). A database older than the baseline
is refused and left as it was.

The stores are dumps in ``fixtures/``, written by that sgam's own code
(``fixtures/write_baseline_databases.py`` says how).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql
from tests.conftest import PostgresUrls

from sgam import Memory, SchemaVersionError
from sgam.store._migration_checksums import checksum
from sgam.store._migrations import Migrations
from sgam.store.postgres import catalog as postgres_catalog
from sgam.store.postgres import migrate
from sgam.store.postgres.backend import PostgresBackend
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from sgam.store.sqlite import catalog as sqlite_catalog
from sgam.store.sqlite.fulltext import FAMILIES
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

FIXTURES = Path(__file__).resolve().parent / "fixtures"
STORE = Path(__file__).resolve().parents[2] / "src" / "sgam" / "store"
POSTGRES_MAJOR = 18
"""The server ``schema.txt`` is written from; catalog functions print some definitions
differently across major versions."""


def _t(month: int, day: int = 1) -> datetime:
    return datetime(2021, month, day, tzinfo=UTC)


def _snapshot(dialect: str) -> str:
    """The checked-in schema without its two header lines."""
    return (STORE / dialect / "migrations" / "schema.txt").read_text().split("\n", 2)[2]


def _old_chain(migrations: Migrations) -> list[tuple[int, str]]:
    """The checksums a database of the old chain has once it is upgraded."""
    return [*sorted(migrations.squashed.items()),
            *((version, checksum(script)) for version, script in migrations.pending(migrations.baseline))]


def _check(memory: Memory) -> None:
    """What ``write_baseline_databases.fill`` wrote reads the same, and the store takes
    writes and an erasure."""
    def city(at: datetime) -> object:
        found = memory.get("acme", "ann", "city", at=at)
        return None if found is None else found.value

    assert [city(_t(2)), city(_t(4)), city(_t(6))] == ["Paris", "Rome", None]
    assert [a.value for a in memory.history("acme", "ann", "city")] == ["Paris", "Rome"]
    plan = memory.get("acme", "bob", "plan", at=_t(3))
    assert plan is not None and plan.value == "gold"
    before = memory.get("acme", "bob", "plan", at=_t(3), known_at=plan.recorded_at - timedelta(microseconds=1))
    assert before is not None and before.value == "silver"
    employer = memory.get("globex", "ann", "employer", at=_t(2))
    assert employer is not None and employer.value == "Globex"
    assert memory.get("acme", "ann", "employer", at=_t(2)) is None
    attributes, _ = memory.schema("acme")
    assert [(a.attribute, a.description) for a in attributes] == [("city", "where the subject lives")]
    assert memory.consented("acme", "bob", purpose="marketing") is False
    assert [e.id for e in memory.episodes("acme")] == ["e1", "e2", "e3"]
    assert {hit.episode_id for hit in memory.search("acme", "Rome")} == {"e2", "e3"}
    assert memory.documents.read("acme", "/memories/notes.md").content == "Ann likes night trains\n"
    assert len(memory.documents.history("acme", "/memories/notes.md")) == 2
    assert [hit.path for hit in memory.documents.search("acme", "trains")] == ["/memories/notes.md"]

    memory.write("acme", "ann", "city", "Lima", _t(7), "e3")
    assert city(_t(8)) == "Lima"
    memory.forget_episode("acme", "e2")  # Rome and Bob's plan as if never recorded
    assert [city(_t(4)), city(_t(6))] == ["Paris", None]
    assert memory.get("acme", "bob", "plan", at=_t(3)) is None
    assert {hit.episode_id for hit in memory.search("acme", "Rome")} == {"e3"}


def _sqlite_v10(path: Path) -> Path:
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript((FIXTURES / "sqlite_v10.sql").read_text())
    return path


def _sqlite_versions(path: Path) -> list[tuple[int, str | None]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()


def test_a_sqlite_store_of_version_10_upgrades_and_reads_the_same(tmp_path: Path) -> None:
    path = _sqlite_v10(tmp_path / "v10.db")
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT max(version) FROM sgam_migrations").fetchone() == (SQLITE_MIGRATIONS.baseline,)
    with Memory(f"sqlite:///{path}") as memory:
        assert memory.backend.schema_version() == SQLITE_MIGRATIONS.latest
        _check(memory)
    assert _sqlite_versions(path) == _old_chain(SQLITE_MIGRATIONS)
    with closing(sqlite3.connect(path)) as conn:
        # the full-text partitions holding the migrated rows are the schema's data
        parts = {FAMILIES[family].table(part) for part, family in conn.execute(
            "SELECT part, family FROM full_text_parts")}
        described = [line for line in sqlite_catalog.describe(conn).splitlines(keepends=True)
                     if line.split(":")[0].removeprefix("virtual table ") not in parts]
    assert parts == {"episodes_fts_1", "ledger_keys_fts_2"}
    assert "".join(described) == _snapshot("sqlite")
    Memory(f"sqlite:///{path}").close()  # its recorded checksums are accepted from then on


def _sqlite_dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


def test_a_sqlite_store_older_than_the_baseline_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = _sqlite_v10(tmp_path / "v7.db")
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("DELETE FROM sgam_migrations WHERE version > 7")
        conn.commit()
    before = _sqlite_dump(path)
    with pytest.raises(SchemaVersionError, match=r"schema version 7, older than version 10, the oldest"):
        Memory(f"sqlite:///{path}")
    assert _sqlite_dump(path) == before


@pytest.fixture
def postgres_v18(postgres_urls: PostgresUrls) -> Iterator[tuple[str, str]]:
    """A database loaded from the version-18 dump by the server's admin (which owns its
    tables, as the admin who ran the migrations did), and a login role that owns
    nothing: (owner URL, app URL)."""
    server = postgres_urls.server_admin
    name, role = "sgam_test_baseline", "sgam_test_baseline_app"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD 'pw'")
                     .format(sql.Identifier(role)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    login = urlsplit(server)
    owner = with_login(server, login.username or "postgres", login.password, name)
    # psql's \restrict lines are not SQL; the policies name the role that wrote the dump
    dump = re.sub(r"(?m)^\\(un)?restrict .*$", "", (FIXTURES / "postgres_v18.sql").read_text())
    dump = dump.replace(" TO postgres ", " TO CURRENT_USER ")
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(dump.encode())
    try:
        yield owner, with_login(server, role, "pw", name)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _postgres_versions(owner: str) -> list[tuple[int, str | None]]:
    with psycopg.connect(owner) as conn:
        rows = conn.execute("SELECT version, to_jsonb(m) ->> 'checksum' FROM sgam_migrations m ORDER BY version")
        return [(int(version), digest) for version, digest in rows]


def test_a_postgres_store_of_version_18_upgrades_and_reads_the_same(postgres_v18: tuple[str, str]) -> None:
    owner, app = postgres_v18
    assert max(version for version, _ in _postgres_versions(owner)) == POSTGRES_MIGRATIONS.baseline
    assert migrate(owner, grant_to=[urlsplit(app).username or ""]) == POSTGRES_MIGRATIONS.latest
    assert _postgres_versions(owner) == _old_chain(POSTGRES_MIGRATIONS)
    with psycopg.connect(owner, autocommit=True) as conn:
        if conn.info.server_version // 10000 == POSTGRES_MAJOR:
            assert postgres_catalog.describe(conn) == _snapshot("postgres")
    with Memory(app) as memory:
        assert memory.backend.schema_version() == POSTGRES_MIGRATIONS.latest
        _check(memory)


def test_a_postgres_store_older_than_the_baseline_is_refused_and_left_as_it_was(
        postgres_v18: tuple[str, str]) -> None:
    owner, app = postgres_v18
    with psycopg.connect(owner) as conn:
        conn.execute("DELETE FROM sgam_migrations WHERE version > 12")
        conn.execute(sql.SQL("GRANT SELECT ON sgam_migrations TO {}").format(
            sql.Identifier(urlsplit(app).username or "")))  # what the dump, without grants, left out
    before = _postgres_versions(owner)
    with pytest.raises(SchemaVersionError, match=r"schema version 12, older than version 18, the oldest"):
        migrate(owner)
    with pytest.raises(SchemaVersionError, match=r"schema version 12, older than version 18"):
        PostgresBackend(app, admin_url=owner)
    assert _postgres_versions(owner) == before
