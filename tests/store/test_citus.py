"""``sgam migrate --distributed`` and row-level security on a Citus cluster's workers.

The refusals run on any PostgreSQL; the rest needs ``SGAM_TEST_CITUS_URL`` (``tests/citus.py``)
and is skipped without it."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from tests.citus import needs_citus, on_node, workers
from tests.conftest import APP_ROLE, PostgresUrls
from typer.testing import CliRunner

from sgam import Memory, ValidationError
from sgam.cli.app import app
from sgam.store.postgres import migrate
from sgam.store.postgres.distribute import COLOCATION_ANCHOR, REFERENCE_TABLES
from sgam.store.postgres.install import installed_version, with_login
from sgam.store.postgres.migrations import MIGRATIONS, TENANT_TABLES

D1 = "2026-06-01T00:00:00Z"
EXIT_VALIDATION = 3  # the exit status of a validation error (sgam.boundary.statuses)
PLAIN_DATABASE = "sgam_test_plain"


@pytest.fixture
def plain_database(postgres_urls: PostgresUrls) -> Iterator[str]:
    """An owner URL of a database without the citus extension, on the same server."""
    with psycopg.connect(postgres_urls.server_admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(PLAIN_DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(PLAIN_DATABASE)))
    yield with_login(postgres_urls.admin, *_login(postgres_urls.admin), dbname=PLAIN_DATABASE)
    with psycopg.connect(postgres_urls.server_admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(PLAIN_DATABASE)))


def _login(url: str) -> tuple[str, str | None]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.username or "postgres", parts.password


def test_distributed_is_refused_without_citus_and_installs_nothing(plain_database: str) -> None:
    with pytest.raises(ValidationError, match="no citus extension") as caught:
        migrate(plain_database, distributed=True)
    assert caught.value.field == "distributed"
    with psycopg.connect(plain_database) as conn:
        assert installed_version(conn) == 0


def test_cli_distributed_refused_without_citus(plain_database: str) -> None:
    result = CliRunner().invoke(app, ["migrate", "--db", plain_database, "--distributed"])
    assert result.exit_code == EXIT_VALIDATION, result.output
    assert "no citus extension" in result.output


def test_cli_distributed_needs_a_postgres_url() -> None:
    result = CliRunner().invoke(app, ["migrate", "--db", "sqlite:///unused.db", "--distributed"])
    assert result.exit_code == EXIT_VALIDATION, result.output
    assert "postgresql://" in result.output


def _citus_tables(admin: str) -> dict[str, tuple[str, int]]:
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute("SELECT logicalrelid::regclass::text, partmethod, colocationid "
                            "FROM pg_dist_partition").fetchall()
    return {str(name): (str(method), int(group)) for name, method, group in rows}


def _shards(admin: str) -> list[tuple[str, str, int]]:
    """Every shard placement of a tenant table: (shard table, node, port)."""
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT shard_name(s.logicalrelid, s.shardid), p.nodename, p.nodeport "
            "FROM pg_dist_shard s JOIN pg_dist_shard_placement p USING (shardid) "
            "WHERE s.logicalrelid::regclass::text = ANY(%s)", (list(TENANT_TABLES),)).fetchall()
    return [(str(name), str(host), int(port)) for name, host, port in rows]


@needs_citus
def test_every_tenant_table_is_distributed_by_tenant_and_colocated(postgres: PostgresUrls) -> None:
    found = _citus_tables(postgres.admin)
    anchor = found[COLOCATION_ANCHOR]
    assert {t: found.get(t) for t in TENANT_TABLES} == {t: ("h", anchor[1]) for t in TENANT_TABLES}
    assert {t: found[t][0] for t in REFERENCE_TABLES} == dict.fromkeys(REFERENCE_TABLES, "n")
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        columns = conn.execute("SELECT DISTINCT column_to_column_name(logicalrelid, partkey) "
                               "FROM pg_dist_partition WHERE partmethod = 'h'").fetchall()
    assert columns == [("tenant",)]


@needs_citus
def test_distributed_again_and_a_plain_migrate_change_nothing(postgres: PostgresUrls) -> None:
    before, shards = _citus_tables(postgres.admin), _shards(postgres.admin)
    assert migrate(postgres.admin, distributed=True) == MIGRATIONS.latest
    assert migrate(postgres.admin, grant_to=[APP_ROLE]) == MIGRATIONS.latest
    assert _citus_tables(postgres.admin) == before
    assert sorted(_shards(postgres.admin)) == sorted(shards)
    with Memory(postgres.app) as memory:
        memory.add_episode("acme", "e1", D1, "text")
        memory.write("acme", "mira", "city", "Oslo", D1, "e1")
        assert memory.get("acme", "mira", "city").value == "Oslo"


@needs_citus
def test_a_table_left_local_is_distributed_by_a_later_migrate(postgres: PostgresUrls) -> None:
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        conn.execute("SELECT undistribute_table('quarantine')")
    assert "quarantine" not in _citus_tables(postgres.admin)
    migrate(postgres.admin, grant_to=[APP_ROLE])
    assert _citus_tables(postgres.admin)["quarantine"] == ("h", _citus_tables(postgres.admin)[COLOCATION_ANCHOR][1])


@needs_citus
def test_forced_row_level_security_and_the_tenant_policy_on_every_shard(postgres: PostgresUrls) -> None:
    shards = _shards(postgres.admin)
    assert len(shards) >= 2 * len(TENANT_TABLES)
    database = postgres.admin.rpartition("/")[2]
    for host, port in workers(postgres.server_admin):
        names = [name for name, node, at in shards if (node, at) == (host, port)]
        with psycopg.connect(on_node(postgres.admin, host, port, database), autocommit=True) as conn:
            conn.execute("SET citus.override_table_visibility = off")  # a worker hides its shards otherwise
            rows = conn.execute(
                "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, "
                "EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation') "
                "FROM pg_class c WHERE c.relname = ANY(%s)", (names,)).fetchall()
        assert sorted(str(row[0]) for row in rows) == sorted(names)
        assert [row for row in rows if not (row[1] and row[2] and row[3])] == []


@needs_citus
def test_the_application_role_on_a_worker_reads_no_other_tenants_rows(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        for tenant in ("acme", "globex", "initech", "umbrella"):
            memory.add_episode(tenant, "e1", D1, f"{tenant} text")
            memory.write(tenant, "mira", "city", tenant.upper(), D1, "e1")
    database = postgres.admin.rpartition("/")[2]
    shards = [(name, host, port) for name, host, port in _shards(postgres.admin)
              if name.startswith(("episodes_", "assertions_", "operations_"))]
    seen: set[str] = set()
    for host, port in workers(postgres.server_admin):
        app_on_worker = on_node(with_login(postgres.admin, APP_ROLE, "app", database), host, port)
        with psycopg.connect(app_on_worker) as conn:
            for table in ("episodes", "assertions", "operations"):
                assert conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone() \
                    == (0,)
            conn.execute("SELECT set_config('sgam.tenant', 'acme', true)")
            for name, node, at in shards:
                if (node, at) != (host, port):
                    continue
                tenants = conn.execute(sql.SQL("SELECT DISTINCT tenant FROM {}").format(sql.Identifier(name)))
                found = {str(row[0]) for row in tenants.fetchall()}
                assert found <= {"acme"}, (name, found)
                seen |= found
            conn.rollback()
    assert seen == {"acme"}
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        assert conn.execute("SELECT count(DISTINCT tenant) FROM episodes").fetchone() == (4,)



def test_no_foreign_key_cascades_an_update_of_the_tenant(postgres: PostgresUrls) -> None:
    """Citus refuses ``ON UPDATE CASCADE`` on a foreign key holding the distribution column."""
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        cascading = conn.execute("SELECT conname FROM pg_constraint WHERE contype = 'f' AND confupdtype <> 'a' "
                                 "AND connamespace = current_schema()::regnamespace").fetchall()
    assert cascading == []


def test_no_server_function_is_pinned_to_a_generic_plan(postgres: PostgresUrls) -> None:
    """Citus routes a statement to its tenant's shard only in a custom plan."""
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        pinned = conn.execute("SELECT proname FROM pg_proc WHERE proname LIKE 'sgam%' "
                              "AND 'plan_cache_mode=force_generic_plan' = ANY (proconfig)").fetchall()
    assert pinned == []


@needs_citus
def test_a_coordinator_gets_the_citus_dialect_and_its_checkpoints_reach_the_workers(postgres: PostgresUrls) -> None:
    """A backend opening a Citus coordinator wraps each unit of work in ``BEGIN`` so that the
    tenant's ``SET LOCAL`` reaches the worker holding the tenant's shards; a checkpoint put
    and its resume, which no server function carries any more, are stored and read there."""
    from langgraph.checkpoint.base import empty_checkpoint

    from sgam.langgraph import SgamSaver
    from sgam.store._sql.dialect import CITUS
    from sgam.store.postgres import PostgresBackend

    backend = PostgresBackend(postgres.app)
    assert backend.dialect is CITUS
    with Memory(backend=backend) as memory:
        saver = SgamSaver(memory, tenant="acme")
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"notes": "on a worker"}
        stored = saver.put({"configurable": {"thread_id": "t-1", "checkpoint_ns": ""}}, checkpoint, {}, {})
        saver.put_writes(stored, [("notes", "later")], "task-1")
        found = saver.get_tuple(stored)
        assert found is not None and found.checkpoint["channel_values"] == {"notes": "on a worker"}
        assert found.pending_writes == [("task-1", "notes", "later")]
