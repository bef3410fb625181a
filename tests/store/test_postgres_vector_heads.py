"""Episode vector search in large tenants ranks the vectors' heads first, then the
candidates exactly (PostgreSQL): the answers must be the exact scan's, with
and without filters, the heads must follow their vectors through re-embedding and
erasure, and an upgrade must fill them for the vectors already stored."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import psycopg
import pytest
from tests.conftest import PostgresUrls
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import Memory
from sgam.store import SearchFilter
from sgam.store.postgres import search

DIMS = 96  # no HNSW index in the test database for this dimension: searched exactly
TENANT = "acme"


class Noise:
    """A deterministic embedder: each text a random direction of its own; texts that share
    a first word share most of it, so neighbours are not all equally far."""

    name = "test:noise96"
    dimension = DIMS

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def embed(self, texts: list[str]) -> Any:
        rows = []
        for text in texts:
            first = np.random.default_rng(zlib.crc32(text.split()[0].encode())).normal(size=DIMS)
            own = np.random.default_rng(zlib.crc32(text.encode())).normal(size=DIMS)
            rows.append(self.scale * (first + 0.7 * own))
        return np.array(rows, dtype=np.float32)


WORDS = ["tea", "kettle", "river", "bridge", "garden", "train", "letter", "winter"]


def _episodes(n: int) -> list[dict[str, str]]:
    return [{"id": f"e{i}", "at": f"2024-01-{1 + i % 28:02d}T00:00:00Z", "text": f"{WORDS[i % 8]} story {i}",
             "session": f"s{i % 5}"} for i in range(n)]


def _nearest(memory: Memory, question: str, flt: SearchFilter, limit: int) -> list[int]:
    vector = Noise().embed([question])[0]
    with memory.backend.read(TENANT) as reader:
        return memory._search.index.vector_episodes(reader, Noise.name, vector, flt, limit)


FILTERS = [SearchFilter(), SearchFilter(session="s2"), SearchFilter(since=1_704_412_800_000_000),
           SearchFilter(until=1_705_000_000_000_000, session="s1")]


def test_heads_give_the_exact_answers(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "VECTORS_IN_PROCESS", False)
    with Memory(postgres.app, embedder=Noise()) as memory:
        memory.add_episodes(TENANT, _episodes(300))
    questions = ("tea time", "river crossing", "winter letter 7")
    answers = {}
    for threshold in (10**9, 0):
        monkeypatch.setattr(search, "HEADS_FROM_EPISODES", threshold)
        with Memory(postgres.app, embedder=Noise()) as memory:
            answers[threshold] = [_nearest(memory, q, flt, 25) for q in questions for flt in FILTERS]
    assert answers[0] == answers[10**9]
    assert all(answers[0])


def test_the_heads_pass_is_taken_from_the_threshold_on(postgres: PostgresUrls,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without heads rows the heads pass finds nothing: so it runs exactly when the
    tenant's episode tally reaches the threshold, as the index last read it."""
    with Memory(postgres.app, embedder=Noise()) as memory:
        memory.add_episodes(TENANT, _episodes(40))
    with psycopg.connect(postgres.admin) as conn:
        conn.execute("DELETE FROM episode_vector_heads")
    monkeypatch.setattr(search, "HEADS_FROM_EPISODES", 41)
    monkeypatch.setattr(search, "VECTORS_IN_PROCESS", False)
    with Memory(postgres.app, embedder=Noise()) as memory:
        assert len(_nearest(memory, "tea", SearchFilter(), 10)) == 10
        memory.add_episode(TENANT, "late", "2024-02-01T00:00:00Z", "tea late")
        assert len(_nearest(memory, "tea", SearchFilter(), 10)) == 10  # the reading is still fresh
        memory._search.index._heads.clear()  # as when the reading expires
        with psycopg.connect(postgres.admin) as conn:
            conn.execute("DELETE FROM episode_vector_heads")
        assert _nearest(memory, "tea", SearchFilter(), 10) == []


def _heads(admin: str) -> dict[str, list[float]]:
    with psycopg.connect(admin) as conn:
        rows = conn.execute("SELECT episode_id, head::text FROM episode_vector_heads WHERE tenant = %s",
                            (TENANT,)).fetchall()
    return {str(r[0]): [float(x) for x in str(r[1]).strip("[]").split(",")] for r in rows}


def test_heads_follow_their_vectors(postgres: PostgresUrls) -> None:
    with Memory(postgres.app, embedder=Noise()) as memory:
        memory.add_episodes(TENANT, _episodes(12))
    heads = _heads(postgres.admin)
    assert sorted(heads) == sorted(f"e{i}" for i in range(12))
    full = Noise().embed(["tea story 0"])[0]
    expected = (full / np.linalg.norm(full))[: DIMS * 3 // 8]
    assert np.allclose(heads["e0"], expected, atol=2e-3)  # halfvec precision
    with Memory(postgres.app, embedder=Noise(scale=-3.0)) as memory:  # re-embedding replaces the vectors
        memory._search.backend.run_write(TENANT, lambda txn: memory._search.index.put_episode_vectors(
            txn, Noise.name, [("e0", Noise(scale=-3.0).embed(["tea story 0"])[0])]))
        assert np.allclose(_heads(postgres.admin)["e0"], -expected, atol=2e-3)
        memory.forget_episode(TENANT, "e3")
    assert sorted(_heads(postgres.admin)) == sorted(f"e{i}" for i in range(12) if i != 3)
