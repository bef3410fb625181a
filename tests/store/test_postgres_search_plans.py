"""Vector searches on PostgreSQL run as prepared statements, and after five executions
PostgreSQL may keep a generic plan, in which an expression of a parameter is evaluated
for every row it is compared with. The question's vector must reach each comparison as a
value computed once per execution, never as a cast the scan repeats per row."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import psycopg
import pytest
from tests.citus import not_on_citus
from tests.conftest import PostgresUrls
from tests.store.test_postgres_vector_heads import DIMS, TENANT, Noise, _episodes

from sgam import Memory
from sgam.store import SearchFilter
from sgam.store.postgres import search
from sgam.store.postgres.session import PostgresSession

FILTERS = [SearchFilter(), SearchFilter(until=1_705_000_000_000_000, session="s1")]


def _recorded(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts of the statements that rank vectors, as the index sends them."""
    sent: list[str] = []
    run = PostgresSession._run

    def record(self: PostgresSession, sql: str, params: Any) -> Any:
        if "vector(" in sql and "ORDER BY" in sql:
            sent.append(sql)
        return run(self, sql, params)

    monkeypatch.setattr(PostgresSession, "_run", record)
    index = memory._search.index
    vector = Noise().embed(["tea time"])[0]
    with memory.backend.read(TENANT) as reader:
        for flt in FILTERS:
            assert index.vector_episodes(reader, Noise.name, vector, flt, 10)
        assert index.vector_keys(reader, Noise.name, vector, 1_800_000_000_000_000, 10) is not None
    assert memory.documents.search(TENANT, "tea kettle")
    return sent


def _generic_plan(url: str, sql: str) -> list[str]:
    numbered = iter(range(1, sql.count("?") + 1))
    text = re.sub(r"\?", lambda _: f"${next(numbered)}", sql)
    with psycopg.connect(url, autocommit=True) as conn:
        return [str(row[0]) for row in conn.execute(f"EXPLAIN (VERBOSE, GENERIC_PLAN, COSTS OFF) {text}")]


@not_on_citus("Citus explains no generic plan of a distributed statement: it plans each execution with its "
              "parameters, so the generic plan this test reads is never used there")
@pytest.mark.parametrize("heads_from", [10**9, 0])
def test_the_question_vector_is_computed_once_per_execution(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch, heads_from: int,
) -> None:
    monkeypatch.setattr(search, "HEADS_FROM_EPISODES", heads_from)
    monkeypatch.setattr(search, "VECTORS_IN_PROCESS", False)  # the server's statements are the subject here
    with Memory(postgres.app, embedder=Noise()) as memory:
        memory.add_episodes(TENANT, _episodes(60))
        memory.write(TENANT, "ann", "drink", "tea", "2024-01-02T00:00:00Z", "e1")
        memory._search.index_facts(TENANT)
        memory.documents.create(TENANT, "/memories/tea.md", "tea kettle\nriver bridge\n")
        statements = _recorded(memory, monkeypatch)
    assert len(statements) == len(FILTERS) + 2
    for sql in statements:
        plan = _generic_plan(postgres.app, sql)
        ordering = [line for line in plan if "Sort Key:" in line or "Order By:" in line]
        assert ordering, plan
        for line in ordering:
            assert "InitPlan" in line and not re.search(r"\$\d", line), "\n".join(plan)


@not_on_citus("Citus plans a distributed statement with its parameters' values (that is how it routes it by "
              "tenant), so a generic plan forced by plan_cache_mode is refused there, never used")
def test_generic_plans_rank_as_custom_plans_do(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same answers whichever plan PostgreSQL keeps for the prepared statements."""
    monkeypatch.setattr(search, "VECTORS_IN_PROCESS", False)
    with Memory(postgres.app, embedder=Noise()) as memory:
        memory.add_episodes(TENANT, _episodes(200))
    vectors = [np.asarray(v) for v in Noise().embed(["tea time", "river crossing", "winter letter 7"])]
    answers = []
    for mode in ("force_custom_plan", "force_generic_plan"):
        url = f"{postgres.app}{'&' if '?' in postgres.app else '?'}options=-c%20plan_cache_mode%3D{mode}"
        with Memory(url, embedder=Noise()) as memory:
            index = memory._search.index
            with memory.backend.read(TENANT) as reader:
                answers.append([index.vector_episodes(reader, Noise.name, v, flt, 12)
                                for _ in range(7) for v in vectors for flt in FILTERS])
    assert answers[0] == answers[1]
    assert all(answers[0]) and DIMS == len(vectors[0])
