"""Each applied migration's checksum is recorded when it is applied and compared when the
database is opened: an edited past migration is refused with its version named, and a
database written before checksums were kept gets them recorded instead of refused. A new
database records the baseline as one version; one written by the versions the baseline
folded in keeps (or gets) their own checksums, which are accepted."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
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


def _edited(migrations: Migrations, version: int) -> Migrations:
    """The migrations with a past one changed, as an edit in the source would."""
    scripts = list(migrations.scripts)
    scripts[version - migrations.baseline] += "\n    -- edited after it was applied\n"
    return replace(migrations, scripts=tuple(scripts))


def _sqlite_checksums(path: Path) -> list[tuple[int, str | None]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT version, checksum FROM sgam_migrations ORDER BY version").fetchall()


def _expected(migrations: Migrations) -> list[tuple[int, str | None]]:
    """What a database the baseline created records: the baseline, then each later version."""
    return [(version, checksum(script)) for version, script in migrations.pending(0)]


def _old_chain(migrations: Migrations) -> list[tuple[int, str | None]]:
    """What a database the squashed versions created records, once its checksums are kept."""
    return [*sorted(migrations.squashed.items()), *_expected(migrations)[1:]]


def _sqlite_as_old_chain(path: Path) -> None:
    """Rewrite a new file's version table as the old chain left it: versions 1 up, one row
    each, and no checksums (the column came later)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("DELETE FROM sgam_migrations")
        conn.execute("ALTER TABLE sgam_migrations DROP COLUMN checksum")
        conn.executemany("INSERT INTO sgam_migrations VALUES (?, datetime('now'))",
                         [(version,) for version in range(1, SQLITE_MIGRATIONS.latest + 1)])
        conn.commit()


def test_sqlite_records_each_migrations_checksum_when_it_applies_it(tmp_path: Path) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    assert _sqlite_checksums(tmp_path / "a.db") == _expected(SQLITE_MIGRATIONS)
    assert _expected(SQLITE_MIGRATIONS)[0][0] == SQLITE_MIGRATIONS.baseline


@pytest.mark.parametrize("edited", [SQLITE_MIGRATIONS.baseline, SQLITE_MIGRATIONS.baseline + 2])
def test_sqlite_refuses_a_database_whose_past_migration_was_edited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edited: int) -> None:
    SQLiteBackend(str(tmp_path / "a.db")).close()
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", _edited(SQLITE_MIGRATIONS, edited))
    with pytest.raises(SchemaVersionError, match=f"migration {edited} was applied with checksum .* edited"):
        SQLiteBackend(str(tmp_path / "a.db"))
    monkeypatch.undo()
    SQLiteBackend(str(tmp_path / "a.db")).close()  # nothing was changed by the refusal


def test_sqlite_records_the_old_chains_checksums_a_database_written_without_them_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    SQLiteBackend(str(path)).close()
    _sqlite_as_old_chain(path)
    SQLiteBackend(str(path)).close()
    assert _sqlite_checksums(path) == _old_chain(SQLITE_MIGRATIONS)
    SQLiteBackend(str(path)).close()  # and accepts them from then on
    edited = SQLITE_MIGRATIONS.baseline + 1
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", _edited(SQLITE_MIGRATIONS, edited))
    with pytest.raises(SchemaVersionError, match=f"migration {edited} "):
        SQLiteBackend(str(path))


def test_sqlite_refuses_a_squashed_version_recorded_with_another_checksum(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    SQLiteBackend(str(path)).close()
    _sqlite_as_old_chain(path)
    SQLiteBackend(str(path)).close()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE sgam_migrations SET checksum = 'feed' WHERE version = 4")
        conn.commit()
    with pytest.raises(SchemaVersionError, match="migration 4 was applied with checksum feed.* edited"):
        SQLiteBackend(str(path))


def _postgres_checksums(url: str) -> list[tuple[int, str | None]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, to_jsonb(m) ->> 'checksum' FROM sgam_migrations m ORDER BY version")
        return [(int(version), digest) for version, digest in rows]


APP = "sgam_test_upgrade_app"


@pytest.mark.parametrize("edited", [POSTGRES_MIGRATIONS.baseline, POSTGRES_MIGRATIONS.baseline + 2])
def test_postgres_records_checksums_and_refuses_an_edited_past_migration(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch, edited: int) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    assert _postgres_checksums(owner) == _expected(POSTGRES_MIGRATIONS)
    monkeypatch.setattr(install, "MIGRATIONS", _edited(POSTGRES_MIGRATIONS, edited))
    with pytest.raises(SchemaVersionError, match=f"migration {edited} was applied with checksum .* edited"):
        PostgresBackend(app)
    with pytest.raises(SchemaVersionError, match=f"migration {edited} "):
        migrate(owner, grant_to=[APP])
    monkeypatch.undo()
    PostgresBackend(app).close()


def test_postgres_records_the_old_chains_checksums_a_database_written_without_them_lacks(
        owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - fixture
    owner, app = owned
    migrate(owner, grant_to=[APP])
    with psycopg.connect(owner) as conn:  # the version table as the old chain left it, before checksums
        conn.execute("ALTER TABLE sgam_migrations DROP COLUMN checksum")
        conn.execute("ALTER TABLE sgam_migrations NO FORCE ROW LEVEL SECURITY")
        conn.execute("DELETE FROM sgam_migrations")
        conn.execute("INSERT INTO sgam_migrations (version) SELECT generate_series(1, %s)",
                     (POSTGRES_MIGRATIONS.latest,))
        conn.execute("ALTER TABLE sgam_migrations FORCE ROW LEVEL SECURITY")
    PostgresBackend(app).close()  # the application role may not record them: opened, not refused
    assert {digest for _, digest in _postgres_checksums(owner)} == {None}
    PostgresBackend(app, admin_url=owner).close()  # a backend that may migrate records them
    assert _postgres_checksums(owner) == _old_chain(POSTGRES_MIGRATIONS)
    PostgresBackend(app).close()
    edited = POSTGRES_MIGRATIONS.baseline + 1
    monkeypatch.setattr(install, "MIGRATIONS", _edited(POSTGRES_MIGRATIONS, edited))
    with pytest.raises(SchemaVersionError, match=f"migration {edited} "):
        PostgresBackend(app)
