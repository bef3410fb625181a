"""A version added after the baseline upgrades a database in use: each later version runs
once, in order, with its checksum recorded; opening (or ``migrate``) again changes
nothing; what was stored stays readable; an edited later version is refused by name with
the database left as it was; an older sgam refuses the upgraded database. The later
versions are this test's own, on top of the real baseline, as the next real one will be."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from tests.store.test_migration_checksums import edited
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import Memory, SchemaVersionError, StoreError
from sgam.store._migration_checksums import checksum
from sgam.store._migrations import Migrations
from sgam.store.postgres import backend as postgres_backend
from sgam.store.postgres import install, migrate
from sgam.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from sgam.store.sqlite import backend as sqlite_backend
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

AT = "2026-03-01T00:00:00Z"
LATER = (
    """
    CREATE TABLE upgrade_probe (version INTEGER NOT NULL, note TEXT);
    INSERT INTO upgrade_probe (version, note) SELECT 2, count(*) FROM episodes;
    """,
    """
    ALTER TABLE upgrade_probe ADD COLUMN extra INTEGER;
    INSERT INTO upgrade_probe (version, note) SELECT 3, max(version) FROM upgrade_probe;
    """,
)
"""Two later versions, the second depending on the first. Each inserts one row, so a
version applied twice shows twice; the second's row names the version before it, so
running them out of order shows too; the first counts the episodes stored before it
(run as the owner, which sees every tenant)."""


def _later(migrations: Migrations) -> Migrations:
    return Migrations((*migrations.scripts, *LATER))


def _store(memory: Memory) -> None:
    memory.add_episode("acme", "e1", AT, "Ann lives in Oslo")
    memory.write("acme", "ann", "city", "Oslo", AT, "e1")


def _stored(memory: Memory) -> None:
    found = memory.get("acme", "ann", "city")
    assert found is not None and found.value == "Oslo"
    memory.write("acme", "ann", "city", "Rome", "2026-04-01T00:00:00Z", "e1")
    assert [a.value for a in memory.history("acme", "ann", "city")] == ["Oslo", "Rome"]


def _recorded(migrations: Migrations) -> list[tuple[int, str]]:
    return [(version, checksum(script)) for version, script in migrations.pending(0)]


PROBED = [(2, "1"), (3, "2")]
"""The probe's rows once both later versions ran once, in order, after one episode."""


def _sqlite_state(path: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    with closing(sqlite3.connect(path)) as conn:
        versions = conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        probe = (conn.execute("SELECT version, note FROM upgrade_probe ORDER BY rowid").fetchall()
                 if "upgrade_probe" in tables else [])
        return versions, [(int(v), str(n)) for v, n in probe]


def test_sqlite_applies_a_later_version_once_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "in-use.db"
    url = f"sqlite:///{path}"
    with Memory(url) as memory:
        _store(memory)
    assert _sqlite_state(path) == (_recorded(SQLITE_MIGRATIONS), [])
    later = _later(SQLITE_MIGRATIONS)
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", later)
    for _ in range(2):
        with Memory(url) as memory:
            assert memory.backend.schema_version() == later.latest == SQLITE_MIGRATIONS.latest + 2
            assert _sqlite_state(path) == (_recorded(later), PROBED)
    with Memory(url) as memory:
        _stored(memory)
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", edited(later, later.latest))
    with pytest.raises(SchemaVersionError, match=f"migration {later.latest} was applied with checksum .* edited"):
        Memory(url)
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", SQLITE_MIGRATIONS)
    with pytest.raises(SchemaVersionError, match=f"schema version {later.latest}; this sgam knows up to"):
        Memory(url)
    assert _sqlite_state(path) == (_recorded(later), PROBED)


def _postgres_state(owner: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    with psycopg.connect(owner) as conn:
        versions = conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()
        has_probe = conn.execute("SELECT to_regclass('upgrade_probe') IS NOT NULL").fetchone()
        probe = (conn.execute("SELECT version, note FROM upgrade_probe ORDER BY version").fetchall()
                 if has_probe and has_probe[0] else [])
        return [(int(v), str(c)) for v, c in versions], [(int(v), str(n)) for v, n in probe]


APP = "sgam_test_upgrade_app"


def test_postgres_applies_a_later_version_once_in_order(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    with Memory(app) as memory:
        _store(memory)
    assert _postgres_state(owner) == (_recorded(POSTGRES_MIGRATIONS), [])
    later = _later(POSTGRES_MIGRATIONS)
    monkeypatch.setattr(install, "MIGRATIONS", later)
    monkeypatch.setattr(postgres_backend, "MIGRATIONS", later)
    with pytest.raises(StoreError, match=f"at version {POSTGRES_MIGRATIONS.latest}, this sgam needs {later.latest}"):
        Memory(app)  # the application role may not migrate: it is told to run `sgam migrate`
    with ThreadPoolExecutor(2) as pool:  # two starters at once: the advisory lock lets one apply them
        assert list(pool.map(lambda _: migrate(owner, grant_to=[APP]), range(2))) == [later.latest] * 2
    assert _postgres_state(owner) == (_recorded(later), PROBED)
    assert migrate(owner, grant_to=[APP]) == later.latest
    with Memory(app) as memory:
        assert memory.backend.schema_version() == later.latest
        _stored(memory)
    assert _postgres_state(owner) == (_recorded(later), PROBED)
    monkeypatch.setattr(install, "MIGRATIONS", edited(later, later.latest))
    with pytest.raises(SchemaVersionError, match=f"migration {later.latest} was applied with checksum .* edited"):
        migrate(owner, grant_to=[APP])
    monkeypatch.setattr(install, "MIGRATIONS", POSTGRES_MIGRATIONS)
    monkeypatch.setattr(postgres_backend, "MIGRATIONS", POSTGRES_MIGRATIONS)
    with pytest.raises(SchemaVersionError, match=f"schema version {later.latest}; this sgam knows up to"):
        Memory(app)
    assert _postgres_state(owner) == (_recorded(later), PROBED)
