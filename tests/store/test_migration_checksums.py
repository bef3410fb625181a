"""Each applied migration's checksum is recorded when it is applied and compared when the
database is opened: an edited past migration is refused with its version named, and a
database written before checksums were kept gets them recorded instead of refused."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import SchemaVersionError
from sgam.store._migration_checksums import checksum
from sgam.store.postgres import install, migrate
from sgam.store.postgres.backend import PostgresBackend
from sgam.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from sgam.store.sqlite import backend as sqlite_backend
from sgam.store.sqlite.backend import SQLiteBackend
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

EDITED = 5


def _edited(migrations: list[str]) -> list[str]:
    """The migrations with a past one changed, as an edit in the source would."""
    changed = list(migrations)
    changed[EDITED - 1] += "\n    -- edited after it was applied\n"
    return changed


def _sqlite_checksums(path: Path) -> list[tuple[int, str | None]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()


def _expected(migrations: list[str]) -> list[tuple[int, str | None]]:
    return [(version, checksum(script)) for version, script in enumerate(migrations, start=1)]


def test_sqlite_records_each_migrations_checksum_when_it_applies_it(tmp_path: Path) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    assert _sqlite_checksums(tmp_path / "a.db") == _expected(SQLITE_MIGRATIONS)


def test_sqlite_refuses_a_database_whose_past_migration_was_edited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", _edited(SQLITE_MIGRATIONS))
    with pytest.raises(SchemaVersionError, match=f"migration {EDITED} was applied with checksum .* edited"):
        SQLiteBackend(str(tmp_path / "a.db"))
    monkeypatch.undo()
    SQLiteBackend(str(tmp_path / "a.db")).close()  # nothing was changed by the refusal


def test_sqlite_records_checksums_a_database_written_without_them_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    SQLiteBackend(str(path)).close()
    with closing(sqlite3.connect(path)) as conn:  # the version table as sgam kept it before checksums
        conn.execute("ALTER TABLE sgam_migrations DROP COLUMN checksum")
        conn.commit()
    SQLiteBackend(str(path)).close()
    assert _sqlite_checksums(path) == _expected(SQLITE_MIGRATIONS)
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", _edited(SQLITE_MIGRATIONS))
    with pytest.raises(SchemaVersionError, match=f"migration {EDITED} "):
        SQLiteBackend(str(path))


def _postgres_checksums(url: str) -> list[tuple[int, str | None]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, to_jsonb(m) ->> 'checksum' FROM sgam_migrations m ORDER BY version")
        return [(int(version), digest) for version, digest in rows]


APP = "sgam_test_upgrade_app"


def test_postgres_records_checksums_and_refuses_an_edited_past_migration(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    assert _postgres_checksums(owner) == _expected(POSTGRES_MIGRATIONS)
    monkeypatch.setattr(install, "MIGRATIONS", _edited(POSTGRES_MIGRATIONS))
    with pytest.raises(SchemaVersionError, match=f"migration {EDITED} was applied with checksum .* edited"):
        PostgresBackend(app)
    with pytest.raises(SchemaVersionError, match=f"migration {EDITED} "):
        migrate(owner, grant_to=[APP])
    monkeypatch.undo()
    PostgresBackend(app).close()


def test_postgres_records_checksums_a_database_written_without_them_lacks(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    with psycopg.connect(owner) as conn:  # the version table as sgam kept it before checksums
        conn.execute("ALTER TABLE sgam_migrations DROP COLUMN checksum")
    PostgresBackend(app).close()  # the application role may not record them: opened, not refused
    assert {digest for _, digest in _postgres_checksums(owner)} == {None}
    PostgresBackend(app, admin_url=owner).close()  # a backend that may migrate records them
    assert _postgres_checksums(owner) == _expected(POSTGRES_MIGRATIONS)
    monkeypatch.setattr(install, "MIGRATIONS", _edited(POSTGRES_MIGRATIONS))
    with pytest.raises(SchemaVersionError, match=f"migration {EDITED} "):
        PostgresBackend(app)
