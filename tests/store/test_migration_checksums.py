"""Each applied migration's checksum is recorded when it is applied and compared when the
database is opened: an edited past migration (the baseline included) is refused with its
version named, and the database is left as it was."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import SchemaVersionError
from sgam.store._migration_checksums import checksum
from sgam.store._migrations import Migrations
from sgam.store.postgres import install, migrate
from sgam.store.postgres.backend import PostgresBackend
from sgam.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from sgam.store.sqlite import backend as sqlite_backend
from sgam.store.sqlite.backend import SQLiteBackend
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS


def edited(migrations: Migrations, version: int) -> Migrations:
    """The migrations with a past one changed, as an edit in the source would."""
    scripts = list(migrations.scripts)
    scripts[version - 1] += "\n    -- edited after it was applied\n"
    return Migrations(tuple(scripts))


def _sqlite_checksums(path: Path) -> list[tuple[int, str | None]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()


def _expected(migrations: Migrations) -> list[tuple[int, str | None]]:
    """What a new database records: the baseline as version 1, then each later version."""
    return [(version, checksum(script)) for version, script in migrations.pending(0)]


def test_sqlite_records_each_migrations_checksum_when_it_applies_it(tmp_path: Path) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    assert _sqlite_checksums(tmp_path / "a.db") == _expected(SQLITE_MIGRATIONS)
    assert _expected(SQLITE_MIGRATIONS)[0][0] == 1


def test_sqlite_refuses_a_database_whose_baseline_was_edited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", edited(SQLITE_MIGRATIONS, 1))
    with pytest.raises(SchemaVersionError, match="migration 1 was applied with checksum .* edited"):
        SQLiteBackend(str(tmp_path / "a.db"))
    monkeypatch.undo()
    SQLiteBackend(str(tmp_path / "a.db")).close()  # nothing was changed by the refusal
    assert _sqlite_checksums(tmp_path / "a.db") == _expected(SQLITE_MIGRATIONS)


def test_sqlite_refuses_a_version_recorded_without_its_checksum(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    SQLiteBackend(str(path)).close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE sgam_migrations SET checksum = NULL WHERE version = 1")
        conn.commit()
    with pytest.raises(SchemaVersionError, match="migration 1 was applied with checksum none"):
        SQLiteBackend(str(path))


def _postgres_checksums(url: str) -> list[tuple[int, str | None]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version")
        return [(int(version), digest) for version, digest in rows]


APP = "sgam_test_upgrade_app"


def test_postgres_records_checksums_and_refuses_an_edited_baseline(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    assert _postgres_checksums(owner) == _expected(POSTGRES_MIGRATIONS)
    monkeypatch.setattr(install, "MIGRATIONS", edited(POSTGRES_MIGRATIONS, 1))
    with pytest.raises(SchemaVersionError, match="migration 1 was applied with checksum .* edited"):
        PostgresBackend(app)
    with pytest.raises(SchemaVersionError, match="migration 1 "):
        migrate(owner, grant_to=[APP])
    monkeypatch.undo()
    PostgresBackend(app).close()
    assert _postgres_checksums(owner) == _expected(POSTGRES_MIGRATIONS)
