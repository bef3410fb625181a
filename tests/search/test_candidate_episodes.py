"""``candidate_episodes`` asks both channels and their rows together (PostgreSQL:
overlapped in the caller's read, the vectors ranked in process); what it returns must be
what the three reads return one by one, for every combination of channels and filters,
and an erased episode must be gone."""

from __future__ import annotations

from typing import Any

import pytest

from sgam import Memory
from sgam.search import SearchConfig
from sgam.search.embedders import embed_query
from sgam.store import KeywordQuery, SearchFilter, VectorQuery, one_by_one

from ..conftest import PostgresUrls, Store

T = "acme"
FILTERS = [SearchFilter(), SearchFilter(session="s1"), SearchFilter(until=1_704_300_000_000_000),
           SearchFilter(speaker="bob", known_at=4_000_000_000_000_000)]


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": f"e{i}", "at": f"2024-01-{1 + i % 9:02d}T10:00:00Z", "speaker": ("ann", "bob")[i % 2],
         "session": f"s{i % 3}", "text": f"{('tea', 'river', 'passport', 'tortoise')[i % 4]} note {i} about "
                                        f"{('kettles', 'bridges', 'deadlines', 'Zebulon')[i % 4]}"}
        for i in range(40)
    ])


@pytest.mark.parametrize("channels", ["both", "keyword", "vector", "neither"])
def test_together_equals_one_by_one(store: Store, hashing: Any, channels: str) -> None:
    with Memory(store.url, embedder=hashing) as memory:
        _seed(memory)
        index = memory._search.index
        for question in ("tea kettles", "passport deadlines for Zebulon", "bridges"):
            keyword = KeywordQuery(["tea", "kettles", "passport", "bridges"], 12) if channels in ("both", "keyword") \
                else None
            vector = VectorQuery(hashing.name, embed_query(hashing, question), 9) \
                if channels in ("both", "vector") else None
            for flt in FILTERS:
                with memory.backend.read(T) as reader:
                    together = index.candidate_episodes(reader, flt, keyword, vector)
                    apart = one_by_one(index, reader, flt, keyword, vector)
                assert together.keyword == apart.keyword
                assert together.vector == apart.vector
                assert together.rows == apart.rows
                assert set(together.rows) == set(together.keyword) | set(together.vector)
                if channels == "both" and flt == FILTERS[0]:
                    assert together.keyword and together.vector


def test_an_erased_episode_is_no_candidate(store: Store, hashing: Any) -> None:
    with Memory(store.url, embedder=hashing) as memory:
        _seed(memory)
        ids = [hit.episode_id for hit in memory.search(T, "tortoise Zebulon", limit=40, config=SearchConfig())]
        assert "e3" in ids
        memory.forget_episode(T, "e3")
        index = memory._search.index
        with memory.backend.read(T) as reader:
            found = index.candidate_episodes(reader, SearchFilter(), KeywordQuery(["tortoise", "zebulon"], 40),
                                             VectorQuery(hashing.name, embed_query(hashing, "tortoise Zebulon"), 40))
        assert all(stored.row.episode_id != "e3" for stored in found.rows.values())
        assert found.keyword and found.vector


def test_one_pooled_connection_is_enough(postgres: PostgresUrls, hashing: Any) -> None:
    """PostgreSQL reads both channels in the caller's read: a pool of one serves a search."""
    from sgam.store.postgres import PostgresBackend

    with Memory(postgres.app, embedder=hashing) as memory:
        _seed(memory)
        expected = [hit.episode_id for hit in memory.search(T, "tea kettles passport", limit=20)]
    with Memory(backend=PostgresBackend(postgres.app, max_size=1), embedder=hashing) as memory:
        assert [hit.episode_id for hit in memory.search(T, "tea kettles passport", limit=20)] == expected
        assert expected
