"""Row-level security and the connection checks, against a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import errors as pg
from psycopg import sql
from tests.citus import CITUS_URL
from tests.conftest import PostgresUrls

from sgam import Memory, SchemaVersionError, StoreError, UnsafeDatabaseError, ValidationError
from sgam.store.postgres import PostgresBackend, migrate, temporary_database
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import MIGRATIONS

D1 = "2026-06-01T00:00:00Z"
MOVING_A_ROW_REFUSED: tuple[type[Exception], str] = (
    (pg.FeatureNotSupported, "modifying the partition value") if CITUS_URL is not None
    else (pg.InsufficientPrivilege, "row-level security"))
"""How a row moved to another tenant is refused: by row-level security, or on Citus first
by the distribution (a row never changes its distribution column)."""


@pytest.fixture
def filled(postgres: PostgresUrls) -> PostgresUrls:
    with Memory(postgres.app) as memory:
        for tenant in ("acme", "globex"):
            memory.add_episode(tenant, "e1", D1, "text")
            memory.write(tenant, "mira", "city", tenant.upper(), D1, "e1")
    return postgres


def _count(conn: psycopg.Connection[tuple[int]], table: str) -> int:
    row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()
    assert row is not None
    return row[0]


def test_forgotten_tenant_filter_returns_nothing(filled: PostgresUrls) -> None:
    with psycopg.connect(filled.app) as conn:
        for table in ("episodes", "operations", "assertions"):
            assert _count(conn, table) == 0  # no sgam.tenant set: no rows, not all rows
        conn.execute("SET LOCAL sgam.tenant = 'acme'")
        rows = conn.execute("SELECT tenant, value FROM assertions").fetchall()  # no WHERE tenant
        assert rows == [("acme", '"ACME"')]
    with psycopg.connect(filled.admin) as conn:
        assert _count(conn, "assertions") == 2


def test_insert_or_update_for_another_tenant_fails(filled: PostgresUrls) -> None:
    with psycopg.connect(filled.app) as conn:
        conn.execute("SET LOCAL sgam.tenant = 'acme'")
        with pytest.raises(pg.InsufficientPrivilege, match="row-level security"):
            conn.execute(
                "INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, kind, "
                "metadata, schema_version) VALUES ('globex', 'x', now(), now(), 't', 'message', '{}', 0)"
            )
        conn.rollback()
        conn.execute("SET LOCAL sgam.tenant = 'acme'")
        assert conn.execute("UPDATE assertions SET source = 'e1' WHERE tenant = 'globex'").rowcount == 0
        with pytest.raises(MOVING_A_ROW_REFUSED[0], match=MOVING_A_ROW_REFUSED[1]):
            conn.execute("UPDATE episodes SET tenant = 'globex'")


def test_app_role_cannot_change_policies(filled: PostgresUrls) -> None:
    with psycopg.connect(filled.app) as conn, pytest.raises(pg.InsufficientPrivilege):
        conn.execute("ALTER TABLE assertions DISABLE ROW LEVEL SECURITY")


@pytest.mark.parametrize("tenant", ["acme'; drop table x; --", "a,b", "", " acme", "acme\x00",
                                    "ac%sme", "x" * 200, "ÄCME", "a b"])
def test_injection_attempts_are_validation_errors(filled: PostgresUrls, tenant: str) -> None:
    with Memory(filled.app) as memory:
        with pytest.raises(ValidationError, match="tenant"):
            memory.add_episode(tenant, "e9", D1, "text")
        with pytest.raises(ValidationError, match="tenant"):
            memory.write(tenant, "mira", "city", "X", D1, "e1")
        with pytest.raises(ValidationError, match="tenant"):
            memory.get(tenant, "mira", "city")
        with pytest.raises(ValidationError, match="tenant"):
            memory.backend.run_write(tenant, lambda txn: None)
    with psycopg.connect(filled.admin) as conn:
        assert _count(conn, "episodes") == 2 and _count(conn, "assertions") == 2


def test_owner_superuser_and_bypassrls_are_refused(postgres: PostgresUrls) -> None:
    with pytest.raises(UnsafeDatabaseError, match="superuser"):
        PostgresBackend(postgres.admin)
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        for role, extra in (("sgam_test_bypass", "BYPASSRLS"), ("sgam_test_owner", "")):
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL(f"CREATE ROLE {{}} LOGIN {extra}").format(sql.Identifier(role)))
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO sgam_test_bypass")
        conn.execute("GRANT SELECT ON sgam_migrations TO sgam_test_owner")
        conn.execute("GRANT postgres TO sgam_test_owner")
    host = postgres.admin
    with pytest.raises(UnsafeDatabaseError, match="BYPASSRLS"):
        PostgresBackend(with_login(host, "sgam_test_bypass", None))
    with pytest.raises(UnsafeDatabaseError, match="owns"):
        PostgresBackend(with_login(host, "sgam_test_owner", None))
    backend = PostgresBackend(postgres.admin, allow_unsafe_for_tests=True)
    backend.close()


@pytest.fixture
def scratch(postgres_urls: PostgresUrls) -> Iterator[tuple[str, str]]:
    """A fresh database: (admin URL, app URL)."""
    with temporary_database(postgres_urls.server_admin) as app_url:
        dbname = urlsplit(app_url).path.lstrip("/")
        admin = urlsplit(postgres_urls.server_admin)
        yield with_login(postgres_urls.server_admin, admin.username or "postgres", admin.password,
                         dbname), app_url


def test_newer_schema_is_refused_and_nothing_written(scratch: tuple[str, str]) -> None:
    admin, app = scratch
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("INSERT INTO sgam_migrations (version) VALUES (99)")
    with pytest.raises(SchemaVersionError, match="99"):
        PostgresBackend(app)
    with pytest.raises(SchemaVersionError, match="99"):
        migrate(admin)
    with pytest.raises(SchemaVersionError):
        Memory(app)
    with psycopg.connect(admin) as conn:
        rows = conn.execute("SELECT version FROM sgam_migrations ORDER BY version").fetchall()
        assert rows[-1] == (99,) and _count(conn, "episodes") == 0


def test_missing_schema_names_migrate_and_admin_url_installs(postgres_urls: PostgresUrls,
                                                              scratch: tuple[str, str]) -> None:
    admin, app = scratch
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
    with pytest.raises(StoreError, match="sgam migrate"):
        PostgresBackend(app)
    backend = PostgresBackend(app, admin_url=admin)
    assert backend.schema_version() == migrate(admin) == MIGRATIONS.latest  # again: idempotent
    backend.close()
    with Memory(app) as memory:
        memory.add_episode("acme", "e1", D1, "text")
        assert memory.episode("acme", "e1") is not None


def test_worker_claims_every_tenants_jobs_only_through_the_claim_function(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    try:
        for tenant in ("acme", "globex"):
            backend.run_write(tenant, lambda txn: txn.enqueue_job("e1", 1_000_000))
        assert backend.count_jobs(2_000_000, None) == 2
        assert backend.count_jobs(2_000_000, "acme") == 1
        claimed = backend.claim_jobs("worker-1", 2_000_000, 9_000_000, 10, None)
        assert [(job.tenant, job.attempts, job.lease_owner) for job in claimed] == [
            ("acme", 1, "worker-1"), ("globex", 1, "worker-1")]
        assert backend.count_jobs(2_000_000, None) == 0
        assert backend.run_write("acme", lambda txn: txn.finish_job("e1", "worker-1", "done", None))
    finally:
        backend.close()
    with psycopg.connect(postgres.app) as conn:
        assert _count(conn, "extraction_jobs") == 0  # no tenant set: the queue is hidden too
        with pytest.raises(pg.InsufficientPrivilege):
            conn.execute("ALTER POLICY jobs_worker ON extraction_jobs USING (true)")
