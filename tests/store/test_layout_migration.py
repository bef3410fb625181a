"""Rows written before versions ended where the next one starts (before SQLite 9,
PostgreSQL 11, both folded into the baseline) read the same, take ordinary writes as
single appends, and are re-derived exactly by an erasure.

A database that was upgraded through those versions keeps the rows the write path of
that time stored: a superseding write retired the version it closed and inserted a
shortened copy, a retraction did the same. The test stores such rows in a database at
the baseline and opens it with this sgam."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from tests.conftest import PostgresUrls

from sgam import Memory
from sgam._core.time import to_micros
from sgam.store.postgres import install
from sgam.store.postgres.migrations import MIGRATIONS as PG_MIGRATIONS
from sgam.store.sqlite.backend import _split_script
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

SQLITE_BASELINE = SQLITE_MIGRATIONS.upto(SQLITE_MIGRATIONS.baseline)
POSTGRES_BASELINE = PG_MIGRATIONS.upto(PG_MIGRATIONS.baseline)


def _t(month: int, day: int = 1, year: int = 2021) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


R0, R1, R2, R3 = _t(1, 1, 2020), _t(2, 1, 2020), _t(3, 1, 2020), _t(4, 1, 2020)
T1, T2, T3, T4 = _t(1), _t(3), _t(5), _t(7)
EPISODES = [("e1", T1, R0, "Ann moved to Paris; later Lima"), ("e2", T2, R0, "Ann moved to Rome, then left")]
# seq, kind, valid_at, value, source, recorded_at
OPERATIONS = [
    (1, "write", T1, '"Paris"', "e1", R1),
    (2, "write", T2, '"Rome"', "e2", R2),
    (3, "retract", T3, None, "e2", R3),
]
# assertion_id, value, valid_from, valid_to, recorded_from, recorded_to, source, supersedes, closed_by
OLD_VERSIONS = [
    (1, '"Paris"', T1, None, R1, R2, "e1", None, None),
    (1, '"Paris"', T1, T2, R2, None, "e1", None, "e2"),
    (2, '"Rome"', T2, None, R2, R3, "e2", 1, None),
    (2, '"Rome"', T2, T3, R3, None, "e2", 1, "e2"),
]


def _sqlite_old(path: Path) -> str:
    def us(value: datetime | None) -> int | None:
        return None if value is None else to_micros(value)

    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE sgam_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        for version, script in SQLITE_BASELINE.pending(0):
            for statement in _split_script(script):
                conn.execute(statement)
            conn.execute("INSERT INTO sgam_migrations VALUES (?, datetime('now'))", (version,))
        for episode_id, at, recorded, text in EPISODES:
            conn.execute(
                "INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, kind, metadata, "
                "schema_version) VALUES ('acme', ?, ?, ?, ?, 'message', '{}', 0)",
                (episode_id, us(at), us(recorded), text),
            )
        for seq, kind, at, value, source, recorded in OPERATIONS:
            conn.execute(
                "INSERT INTO operations (seq, tenant, subject, attribute, kind, valid_at, value, source, "
                "recorded_at, memory_type, confidence, schema_version) "
                "VALUES (?, 'acme', 'ann', 'city', ?, ?, ?, ?, ?, 'fact', 1.0, 0)",
                (seq, kind, us(at), value, source, us(recorded)),
            )
        for row in OLD_VERSIONS:
            conn.execute(
                "INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, valid_from, "
                "valid_to, recorded_from, recorded_to, source, confidence, schema_version, supersedes, origin, "
                "closed_by) VALUES (?, 'acme', 'ann', 'city', ?, 'fact', ?, ?, ?, ?, ?, 1.0, 0, ?, 'write', ?)",
                (row[0], row[1], us(row[2]), us(row[3]), us(row[4]), us(row[5]), row[6], row[7], row[8]),
            )
    return f"sqlite:///{path}"


def _postgres_rows(owner: str) -> None:
    with psycopg.connect(owner, autocommit=True) as conn, conn.transaction():
        conn.execute("SELECT set_config('sgam.tenant', 'acme', true)")
        for episode_id, at, recorded, text in EPISODES:
            conn.execute(
                "INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, kind, metadata, "
                "schema_version) VALUES ('acme', %s, %s, %s, %s, 'message', '{}', 0)",
                (episode_id, at, recorded, text),
            )
        for seq, kind, at, value, source, recorded in OPERATIONS:
            conn.execute(
                "INSERT INTO operations (seq, tenant, subject, attribute, kind, valid_at, value, source, "
                "recorded_at, memory_type, confidence, schema_version) "
                "VALUES (%s, 'acme', 'ann', 'city', %s, %s, %s, %s, %s, 'fact', 1.0, 0)",
                (seq, kind, at, value, source, recorded),
            )
        conn.execute("SELECT setval(pg_get_serial_sequence('operations', 'seq'), 3)")
        for row in OLD_VERSIONS:
            conn.execute(
                "INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, valid_from, "
                "valid_to, recorded_from, recorded_to, source, confidence, schema_version, supersedes, origin, "
                "closed_by) VALUES (%s, 'acme', 'ann', 'city', %s, 'fact', %s, %s, %s, %s, %s, 1.0, 0, %s, "
                "'write', %s)",
                row,
            )


@contextmanager
def _postgres_old(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(install, "MIGRATIONS", POSTGRES_BASELINE)
    with install.temporary_database(postgres.server_admin) as app:
        parts = urlsplit(app)
        admin = urlsplit(postgres.server_admin)
        owner = install.with_login(postgres.server_admin, admin.username or "postgres", admin.password,
                                   dbname=parts.path.lstrip("/"))
        _postgres_rows(owner)
        monkeypatch.setattr(install, "MIGRATIONS", PG_MIGRATIONS)
        assert install.migrate(owner, grant_to=[parts.username or ""]) == PG_MIGRATIONS.latest
        yield app


def _value(memory: Memory, at: datetime, known_at: datetime | None = None) -> tuple[object, datetime | None]:
    found = memory.get("acme", "ann", "city", at=at, known_at=known_at)
    return (None, None) if found is None else (found.value, found.valid_to)


def _check(memory: Memory) -> None:
    after = _t(1, 15)
    assert _value(memory, after) == ("Paris", T2)
    assert _value(memory, _t(4)) == ("Rome", T3)
    assert _value(memory, _t(6)) == (None, None)
    assert _value(memory, _t(4), known_at=_t(2, 15, 2020)) == ("Paris", None)
    assert _value(memory, _t(6), known_at=_t(3, 15, 2020)) == ("Rome", None)
    assert [a.value for a in memory.history("acme", "ann", "city")] == ["Paris", "Rome"]

    lima = memory.write("acme", "ann", "city", "Lima", _t(2), "e1")  # inside Paris: one appended row
    assert lima.assertion is not None and lima.assertion.valid_to == T2
    assert _value(memory, after) == ("Paris", _t(2))
    assert _value(memory, _t(2, 15)) == ("Lima", T2)
    assert _value(memory, _t(2, 15), known_at=_t(3, 15, 2020)) == ("Paris", T2)
    assert len(memory.versions("acme", "ann", "city")) == 5
    memory.write("acme", "ann", "city", "Oslo", T4, "e1")  # in the retraction's gap
    assert _value(memory, _t(8)) == ("Oslo", None)

    memory.forget_episode("acme", "e2")  # Rome and its retraction as if never recorded
    assert _value(memory, _t(4)) == ("Lima", T4)
    assert _value(memory, _t(6)) == ("Lima", T4)
    assert [a.value for a in memory.history("acme", "ann", "city")] == ["Paris", "Lima", "Oslo"]


def test_a_sqlite_database_of_the_old_layout_migrates(tmp_path: Path) -> None:
    url = _sqlite_old(tmp_path / "old.db")
    with Memory(url) as memory:
        assert memory.backend.schema_version() == SQLITE_MIGRATIONS.latest
        _check(memory)


def test_a_postgres_database_of_the_old_layout_migrates(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _postgres_old(postgres, monkeypatch) as app, Memory(app) as memory:
        _check(memory)
