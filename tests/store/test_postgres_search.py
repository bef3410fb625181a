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
from sgam.store.postgres.install import with_login

D1 = "2024-01-01T00:00:00Z"


class TwoDimensions:
    name = "test:two"
    dimension = 2

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        return np.array([[1.0, 0.0] if "tea" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


def _plan(app: str, tenant: str, dims: int) -> str:
    with psycopg.connect(app) as conn:
        conn.execute(sql.SQL("SET LOCAL sgam.tenant = {}").format(sql.Literal(tenant)))
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


def test_the_keyword_index_keeps_its_pending_list_short(postgres: PostgresUrls) -> None:
    """A bulk ingest must not leave megabytes of unmerged GIN entries that turn every
    keyword search into a sequential scan until autovacuum runs."""
    with psycopg.connect(postgres.admin) as conn:
        row = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'episodes_search'").fetchone()
    assert row is not None and "gin_pending_list_limit=128" in row[0]
