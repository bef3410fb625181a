"""Keyword search reads each tenant's episode count from a tally kept by triggers
(PostgreSQL) instead of counting on every search: the tally must equal the
count after batches, single adds, idempotent repeats, erasures and concurrent writers, per
tenant, and an upgrade must fill it from the episodes already stored."""

from __future__ import annotations

import threading

import psycopg
from psycopg import sql
from tests.citus import not_on_citus
from tests.conftest import PostgresUrls
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import Memory
from sgam.store import SearchFilter

D1 = "2024-01-01T00:00:00Z"


def _counted(url: str, tenant: str) -> tuple[int, int]:
    """(the tally, count(*)) of the tenant's episodes, read as ``url``'s role."""
    with psycopg.connect(url) as conn:
        conn.execute(sql.SQL("SET LOCAL sgam.tenant = {}").format(sql.Literal(tenant)))
        tally = conn.execute("SELECT coalesce(sum(episodes), 0) FROM episode_counts").fetchone()
        count = conn.execute("SELECT count(*) FROM episodes").fetchone()
    assert tally is not None and count is not None
    return int(tally[0]), int(count[0])


def _episodes(prefix: str, n: int) -> list[dict[str, str]]:
    return [{"id": f"{prefix}{i}", "at": D1, "text": f"tea number {i} with {prefix}"} for i in range(n)]


def test_the_tally_follows_inserts_repeats_and_erasures(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        memory.add_episodes("acme", _episodes("a", 30))
        memory.add_episodes("acme", _episodes("a", 30) + _episodes("b", 5))  # 30 repeats, 5 new
        memory.add_episode("acme", "c1", D1, "green tea")
        memory.add_episodes("globex", _episodes("g", 7))
        assert _counted(postgres.app, "acme") == (36, 36)
        assert _counted(postgres.app, "globex") == (7, 7)
        memory.forget_episode("acme", "a3")
        memory.forget_episode("acme", "c1")
        assert _counted(postgres.app, "acme") == (34, 34)
        assert _counted(postgres.app, "globex") == (7, 7)
        assert _counted(postgres.app, "initech") == (0, 0)


def test_concurrent_writers_of_one_tenant_keep_the_tally_exact(postgres: PostgresUrls) -> None:
    errors: list[BaseException] = []

    def writer(prefix: str) -> None:
        try:
            with Memory(postgres.app) as memory:
                for start in range(0, 40, 8):
                    memory.add_episodes("acme", _episodes(prefix, 40)[start:start + 8])
                    memory.add_episode("acme", f"{prefix}-one-{start}", D1, "one more")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(f"w{n}-",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _counted(postgres.app, "acme") == (180, 180)


_COUNTED_RANKING = """
    WITH docs AS (SELECT count(*) AS n FROM episodes),
    terms AS (SELECT plainto_tsquery('english', t) AS q FROM unnest(%s::text[]) AS t),
    weighted AS (SELECT t.q, ln(1 + (d.n - f.df + 0.5) / (f.df + 0.5)) AS idf FROM terms t, docs d,
                 LATERAL (SELECT count(*) AS df FROM episodes e WHERE e.search @@ t.q) f WHERE f.df > 0)
    SELECT e.seq FROM episodes e WHERE EXISTS (SELECT 1 FROM weighted w WHERE e.search @@ w.q)
    ORDER BY (SELECT sum(w.idf * ts_rank('{0.1, 0.2, 0.3, 1.0}', e.search, w.q, 1)) FROM weighted w) DESC, e.seq
    LIMIT %s
"""
"""The ranking as it was computed before the tally: every episode of the tenant counted."""


@not_on_citus("the reference ranking this test computes itself (an aggregate in a lateral subquery over the "
              "tenant's episodes) is a statement Citus cannot push down; sgam's keyword search is checked on "
              "Citus by the search and recall suites")
def test_keyword_ranking_equals_the_counted_one(postgres: PostgresUrls) -> None:
    """The tally gives the ranking that counting every episode gave, whatever another
    tenant stores and after erasures."""
    words = ["tea", "kettle", "green", "cup", "milk", "sugar", "lemon"]
    with Memory(postgres.app) as memory:
        memory.add_episodes("acme", [{"id": f"t{i}", "at": D1, "text": " ".join(words[j] for j in range(7)
                                                                                 if (i >> j) & 1 or j == i % 7)}
                                     for i in range(90)])
        memory.add_episodes("globex", [{"id": f"k{i}", "at": D1, "text": "kettle lemon"} for i in range(50)])
        memory.forget_episode("acme", "t5")
        index = memory._search.index
        for question in (["tea"], ["kettle", "lemon"], ["green", "cup", "milk"], ["sugar", "tea", "lemon", "cup"]):
            with psycopg.connect(postgres.app) as conn:
                conn.execute("SET LOCAL sgam.tenant = 'acme'")
                expected = [int(r[0]) for r in conn.execute(_COUNTED_RANKING, (question, 20)).fetchall()]
            with memory.backend.read("acme") as reader:
                assert index.keyword_episodes(reader, question, SearchFilter(), 20) == expected
            assert len(expected) == 20
