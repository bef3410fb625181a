"""Keyword candidates of one tenant in a file (or database) another tenant fills with matches."""

from __future__ import annotations

from sgam import Memory
from sgam.store import SearchFilter

from ..conftest import Store

SMALL = [
    ("s-long", "2024-01-03T00:00:00Z", "we talked for hours about the harvest and then someone mentioned an apple"),
    ("s-pie", "2024-01-02T00:00:00Z", "apple pie"),
    ("s-best", "2024-01-04T00:00:00Z", "apple apple apple"),
    ("s-none", "2024-01-01T00:00:00Z", "nothing to see here"),
]


def _ids(memory: Memory, tenant: str, terms: list[str], flt: SearchFilter, limit: int) -> list[str]:
    index = memory._search.index
    with memory.backend.read(tenant) as reader:
        keys = index.keyword_episodes(reader, terms, flt, limit)
        rows = index.episodes_by_key(reader, keys)
    return [rows[key].row.episode_id for key in keys]


def _fill(memory: Memory) -> None:
    memory.add_episodes("big", [{"id": f"b{i}", "at": "2024-01-01T00:00:00Z", "text": "apple " * (1 + i % 3) + "tree"}
                                for i in range(60)])
    memory.add_episodes("small", [{"id": i, "at": at, "text": text} for i, at, text in SMALL])


def test_a_tenant_with_few_of_the_matches_gets_its_own_best(store: Store) -> None:
    with Memory(store.url) as memory:
        _fill(memory)
        for _ in range(3):  # the first query finds too few in the file's best; later ones join at once
            assert _ids(memory, "small", ["apple"], SearchFilter(), 2) == ["s-best", "s-pie"]
        assert _ids(memory, "small", ["apple"], SearchFilter(), 10) == ["s-best", "s-pie", "s-long"]
        assert _ids(memory, "small", ["apple", "harvest"], SearchFilter(), 1) == ["s-long"]


def test_a_tenant_with_most_of_the_matches_gets_them_in_rank_order(store: Store) -> None:
    with Memory(store.url) as memory:
        _fill(memory)
        found = _ids(memory, "big", ["apple"], SearchFilter(), 25)
        assert len(found) == 25 and all(i.startswith("b") for i in found)
        assert _ids(memory, "big", ["apple"], SearchFilter(), 60)[:25] == found


def test_a_filter_applies_to_the_file_wide_read(store: Store) -> None:
    with Memory(store.url) as memory:
        _fill(memory)
        until = SearchFilter(until=1_704_240_000_000_000)  # 2024-01-03T00:00:00Z: s-best is later
        assert _ids(memory, "small", ["apple"], until, 3) == ["s-pie", "s-long"]
        assert _ids(memory, "big", ["apple"], SearchFilter(since=1_704_240_000_000_000), 5) == []
