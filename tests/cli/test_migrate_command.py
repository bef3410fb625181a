"""``sgam migrate`` installs the schema and refuses a newer one."""

from __future__ import annotations

from pathlib import Path

import psycopg
from typer.testing import CliRunner

from sgam.cli import app
from sgam.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from tests.conftest import PostgresUrls


def test_migrate_sqlite(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["migrate", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 0 and f"schema version {SQLITE_MIGRATIONS.latest}" in result.output


def test_migrate_postgres_is_idempotent_and_refuses_newer(postgres: PostgresUrls) -> None:
    for _ in range(2):
        result = CliRunner().invoke(app, ["migrate", "--db", postgres.admin, "--grant", "sgam_test_app"])
        assert result.exit_code == 0, result.output
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        conn.execute("INSERT INTO sgam_migrations (version) VALUES (42)")
        try:
            result = CliRunner().invoke(app, ["migrate", "--db", postgres.admin])
            assert result.exit_code == 6 and "42" in result.output
        finally:
            conn.execute("DELETE FROM sgam_migrations WHERE version = 42")
