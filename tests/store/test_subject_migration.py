"""A database written before subject ids were normalised (SQLite 10, PostgreSQL 18):
the migration renames each stored id to its normalised form, keeps the old spelling as
its display name, and reports (never merges) ids that fold into one."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from tests.conftest import PostgresUrls

from sgam import Memory
from sgam.store._subject_migration import plan_subjects
from sgam.store.postgres import install
from sgam.store.postgres.migrations import MIGRATIONS as PG_MIGRATIONS
from sgam.store.sqlite.backend import _split_script
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

SQLITE_BEFORE = 10
POSTGRES_BEFORE = 18
T1 = 1_600_000_000_000_000
# seq, subject, value: "Mira Jansen" is renamed; "Bob" and "bob" collide; a LangGraph
# item's namespace subject stays as it is
ROWS = [(1, "Mira  Jansen", '"Oslo"'), (2, "Bob", '"Rome"'), (3, "bob", '"Lima"'), (4, '["Users","A"]', '{"a":1}')]
OPERATION = ("INSERT INTO operations (seq, tenant, subject, attribute, kind, valid_at, value, source, recorded_at, "
             "memory_type, confidence, schema_version) VALUES ({p}, 'acme', {p}, 'city', 'write', {p}, {p}, 'e1', "
             "{p}, 'fact', 1.0, 0)")
ASSERTION = ("INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, valid_from, "
             "recorded_from, source, confidence, schema_version, origin) VALUES ({p}, 'acme', {p}, 'city', {p}, "
             "'fact', {p}, {p}, 'e1', 1.0, 0, 'write')")
EPISODE = ("INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, kind, metadata, schema_version) "
           "VALUES ('acme', 'e1', {p}, {p}, 'Mira Jansen lives in Oslo', 'message', '{{}}', 0)")
CONSENT = ("INSERT INTO consents (tenant, subject, purpose, granted, changed_at, seq) "
           "VALUES ('acme', 'Mira  Jansen', '', {false}, {p}, 1)")


def _insert(conn: Any, p: str, false: str, at: Any) -> None:
    conn.execute(EPISODE.format(p=p), (at(T1), at(T1)))
    for seq, subject, value in ROWS:
        conn.execute(OPERATION.format(p=p), (seq, subject, at(T1), value, at(T1)))
        conn.execute(ASSERTION.format(p=p), (seq, subject, value, at(T1), at(T1)))
    conn.execute(CONSENT.format(p=p, false=false), (at(T1),))


def _sqlite_old(path: Path) -> str:
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE sgam_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for version, script in SQLITE_MIGRATIONS.upto(SQLITE_BEFORE).pending(0):
            for statement in _split_script(script):
                conn.execute(statement)
            conn.execute("INSERT INTO sgam_migrations VALUES (?, datetime('now'))", (version,))
        _insert(conn, "?", "0", lambda us: us)
    return f"sqlite:///{path}"


@contextmanager
def _postgres_old(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from sgam._core.time import from_micros

    monkeypatch.setattr(install, "MIGRATIONS", PG_MIGRATIONS.upto(POSTGRES_BEFORE))
    with install.temporary_database(postgres.server_admin) as app:
        parts = urlsplit(app)
        admin = urlsplit(postgres.server_admin)
        owner = install.with_login(postgres.server_admin, admin.username or "postgres", admin.password,
                                   dbname=parts.path.lstrip("/"))
        with psycopg.connect(owner, autocommit=True) as conn, conn.transaction():
            conn.execute("SELECT set_config('sgam.tenant', 'acme', true)")
            _insert(conn, "%s", "false", from_micros)
            conn.execute("SELECT setval(pg_get_serial_sequence('operations', 'seq'), 4)")
        monkeypatch.setattr(install, "MIGRATIONS", PG_MIGRATIONS)
        assert install.migrate(owner, grant_to=[parts.username or ""]) == PG_MIGRATIONS.latest
        yield app


def _check(memory: Memory) -> None:
    assert memory.consented("acme", "MIRA JANSEN") is False  # the consent statement moved with the id
    memory.consent("acme", "mira jansen", True)
    found = memory.get("acme", "Mira Jansen", "city")
    assert found is not None and found.subject == "mira jansen" and found.value == "Oslo"
    assert memory.display_names("acme", ["mira jansen"]) == {"mira jansen": "Mira  Jansen"}
    assert memory.subject_collisions("acme") == [("bob", "Bob"), ("bob", "bob")]
    assert memory.query("acme", subject="mira jansen")[0].value == "Oslo"
    assert [a.subject for a in memory.query("acme", attribute="city")] == [
        "Bob", '["Users","A"]', "bob", "mira jansen"]
    # forgetting the id reaches every stored spelling reported with it
    memory.forget_subject("acme", "BOB")
    assert memory.subject_collisions("acme") == []
    assert [a.subject for a in memory.query("acme", attribute="city")] == ['["Users","A"]', "mira jansen"]
    memory.write("acme", "Mira Jansen", "city", "Bergen", "2021-01-01T00:00:00Z", "e1")
    assert memory.get("acme", "mira jansen", "city").value == "Bergen"  # type: ignore[union-attr]


def test_the_plan_renames_reports_and_leaves_item_namespaces() -> None:
    plan = plan_subjects([("t", "Mira"), ("t", "Bob"), ("t", "bob"), ("t", '["A"]'), ("u", "Bob"), ("t", "ann")])
    assert plan.renames == [("t", "Mira", "mira"), ("u", "Bob", "bob")]
    assert plan.collisions == [("t", "bob", "Bob"), ("t", "bob", "bob")]


def test_a_sqlite_database_before_normalisation_migrates(tmp_path: Path) -> None:
    url = _sqlite_old(tmp_path / "old.db")
    with Memory(url) as memory:
        assert memory.backend.schema_version() == SQLITE_MIGRATIONS.latest
        _check(memory)


def test_a_postgres_database_before_normalisation_migrates(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _postgres_old(postgres, monkeypatch) as app, Memory(app) as memory:
        _check(memory)
