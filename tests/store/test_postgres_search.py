"""The PostgreSQL search index beyond what the shared search tests check: the HNSW index
of each dimension exists and is usable under row-level security, and upgrading a filled
version-2 database indexes its keys although FORCE row-level security binds the owner."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from tests.conftest import HashingEmbedder, PostgresUrls

from sgam import Memory
from sgam.search import SearchConfig
from sgam.store.postgres import install, migrate, migrations
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import MIGRATIONS

D1 = "2024-01-01T00:00:00Z"


class TwoDimensions:
    name = "test:two"
    dimension = 2

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        return np.array([[1.0, 0.0] if "tea" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


def _plan(app: str, tenant: str, dims: int) -> str:
    with psycopg.connect(app) as conn:
        conn.execute("SELECT set_config('sgam.tenant', %s, true)", (tenant,))
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")  # tiny tables: make the ordered scan win
        vector = "[" + ",".join(["0.5"] * dims) + "]"
        rows = conn.execute(
            f"EXPLAIN SELECT seq FROM episode_vectors WHERE tenant = %s AND dims = {dims} "
            f"ORDER BY embedding::vector({dims}) <=> '{vector}'::vector({dims}) LIMIT 5", (tenant,)
        ).fetchall()
    return "\n".join(str(row[0]) for row in rows)


def test_each_dimension_gets_its_hnsw_index_and_queries_use_it(postgres: PostgresUrls) -> None:
    with Memory(postgres.app, embedder=HashingEmbedder()) as memory:
        memory.add_episode("acme", "e1", D1, "I adopted a tortoise named Zebulon")
        memory.add_episode("acme", "e2", D1, "The passport deadline is July 15")
        assert memory.search("acme", "tortoise named Zebulon", config=SearchConfig(keyword=False))[0].episode_id == "e1"
    with Memory(postgres.app, embedder=TwoDimensions()) as memory:
        memory.add_episode("globex", "g1", D1, "green tea")
        memory.add_episode("globex", "g2", D1, "black coffee")
        assert memory.search("globex", "tea", config=SearchConfig(keyword=False))[0].episode_id == "g1"
        assert memory.search("acme", "tea", config=SearchConfig(keyword=False)) == []
    with psycopg.connect(postgres.admin) as conn:
        names = {row[0] for row in conn.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%hnsw%'")}
    assert {"episode_vectors_hnsw_64", "assertion_vectors_hnsw_64", "episode_vectors_hnsw_2",
            "assertion_vectors_hnsw_2"} <= names
    assert "episode_vectors_hnsw_64" in _plan(postgres.app, "acme", 64)
    assert "episode_vectors_hnsw_2" in _plan(postgres.app, "globex", 2)


@pytest.fixture
def owned(postgres_urls: PostgresUrls) -> Iterator[tuple[str, str]]:
    """A database owned by a role that is no superuser (so FORCE row-level security binds
    it), with pgvector pre-installed by the superuser: (owner URL, app URL)."""
    server = postgres_urls.server_admin
    names = ("sgam_test_upgrade", "sgam_test_upgrade_owner", "sgam_test_upgrade_app")
    db, owner, app = (sql.Identifier(n) for n in names)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(db))
        for role in (owner, app):
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(role))
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD 'pw'").format(role))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(db, owner))
    with psycopg.connect(with_login(server, "postgres", None, names[0]), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
    try:
        yield with_login(server, names[1], "pw", names[0]), with_login(server, names[2], "pw", names[0])
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(db))
            for role in (owner, app):
                conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(role))


def test_upgrade_from_version_2_indexes_existing_keys(owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    owner, app = owned
    monkeypatch.setattr(install, "MIGRATIONS", MIGRATIONS[:2])
    version_2_tables = migrations.TENANT_TABLES[:migrations.TENANT_TABLES.index("ledger_keys")]
    monkeypatch.setattr(migrations, "TENANT_TABLES", version_2_tables)
    monkeypatch.setattr(migrations, "INDEX_FUNCTIONS", ())
    monkeypatch.setattr(migrations, "SEARCH_FUNCTIONS", ())
    monkeypatch.setattr(migrations, "LIFECYCLE_FUNCTIONS", ())
    monkeypatch.setattr(migrations, "LIFECYCLE_TABLES", ())
    migrate(owner, grant_to=["sgam_test_upgrade_app"])
    with psycopg.connect(owner) as conn:
        conn.execute("SELECT set_config('sgam.tenant', 'acme', true)")
        conn.execute("INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, kind, metadata, "
                     "schema_version) VALUES ('acme', 'e1', now(), now(), 'Ann moved', 'message', '{}', 0)")
        conn.execute("INSERT INTO operations (tenant, subject, attribute, kind, valid_at, value, source, "
                     "recorded_at, memory_type, confidence, schema_version) VALUES ('acme', 'ann', "
                     "'home_city', 'write', now(), '\"Oslo\"', 'e1', now(), 'fact', 1, 0)")
    monkeypatch.undo()
    assert migrate(owner, grant_to=["sgam_test_upgrade_app"]) == len(MIGRATIONS)
    with psycopg.connect(owner) as conn:
        assert conn.execute("SELECT count(*) FROM ledger_keys").fetchone() == (0,)  # forced RLS is back
        conn.execute("SELECT set_config('sgam.tenant', 'acme', true)")
        assert conn.execute("SELECT subject, attribute FROM ledger_keys").fetchall() == [("ann", "home_city")]
        assert conn.execute("SELECT count(*) FROM episodes WHERE search @@ to_tsquery('english', 'moved')"
                            ).fetchone() == (1,)
    with Memory(app) as memory:
        assert [hit.episode_id for hit in memory.search("acme", "Ann moved")] == ["e1"]


def test_upgrade_to_version_13_copies_the_episode_columns_onto_stored_vectors(
    owned: tuple[str, str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, app = owned
    monkeypatch.setattr(install, "MIGRATIONS", MIGRATIONS[:12])
    migrate(owner, grant_to=["sgam_test_upgrade_app"])
    with psycopg.connect(owner) as conn:
        conn.execute("SELECT set_config('sgam.tenant', 'globex', true)")
        for episode_id, text, session in (("g1", "green tea", "s1"), ("g2", "tea time", "s2")):
            seq = conn.execute(
                "INSERT INTO episodes (tenant, episode_id, occurred_at, recorded_at, text, speaker, kind, session, "
                "metadata, schema_version) VALUES ('globex', %s, '2024-01-01Z', '2024-01-02Z', %s, 'ann', 'message', "
                "%s, '{}', 0) RETURNING seq", (episode_id, text, session)).fetchone()
            assert seq is not None
            conn.execute("INSERT INTO episode_vectors (tenant, episode_id, seq, model, dims, embedding) "
                         "VALUES ('globex', %s, %s, 'test:two', 2, '[1,0]')", (episode_id, seq[0]))
    monkeypatch.undo()
    assert migrate(owner, grant_to=["sgam_test_upgrade_app"]) == len(MIGRATIONS)
    with psycopg.connect(owner) as conn:
        conn.execute("SELECT set_config('sgam.tenant', 'globex', true)")
        assert conn.execute("SELECT episode_id, session, speaker, occurred_at = '2024-01-01Z' FROM episode_vectors "
                            "ORDER BY episode_id").fetchall() == [("g1", "s1", "ann", True), ("g2", "s2", "ann", True)]
    with Memory(app, embedder=TwoDimensions()) as memory:
        hits = memory.search("globex", "tea", session="s2", config=SearchConfig(keyword=False))
        assert [hit.episode_id for hit in hits] == ["g2"]


def test_the_keyword_index_keeps_its_pending_list_short(postgres: PostgresUrls) -> None:
    """A bulk ingest must not leave megabytes of unmerged GIN entries that turn every
    keyword search into a sequential scan until autovacuum runs (migration 14)."""
    with psycopg.connect(postgres.admin) as conn:
        row = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'episodes_search'").fetchone()
    assert row is not None and "gin_pending_list_limit=128" in row[0]
