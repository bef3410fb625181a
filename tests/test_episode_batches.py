"""A batch of episodes is checked episode by episode, in order, and stored in one
statement: repeats and lineage inside the batch are answered from the batch itself."""

from __future__ import annotations

import pytest

from sgam import ConflictError, Memory, NotFoundError

from .conftest import HashingEmbedder, ManualClock, Store

T = "acme"
AT = "2026-06-01T09:00:00Z"


def test_a_batch_repeating_an_id_with_the_same_content_stores_it_once(memory: Memory) -> None:
    stored = memory.add_episodes(T, [
        {"id": "a", "at": AT, "text": "Mira moved to Oslo."},
        {"id": "b", "at": AT, "text": "Ola moved to Bergen."},
        {"id": "a", "at": AT, "text": "Mira moved to Oslo."},
    ])
    assert [e.id for e in stored] == ["a", "b", "a"]
    assert stored[0] == stored[2]
    assert sorted(e.id for e in memory.episodes(T)) == ["a", "b"]


def test_a_batch_repeating_an_id_with_other_content_stores_nothing(memory: Memory) -> None:
    with pytest.raises(ConflictError, match="'a' is already recorded with other content"):
        memory.add_episodes(T, [
            {"id": "a", "at": AT, "text": "Mira moved to Oslo."},
            {"id": "b", "at": AT, "text": "Ola moved to Bergen."},
            {"id": "a", "at": AT, "text": "Mira moved to Paris."},
        ])
    assert memory.episodes(T) == []


def test_an_episode_may_derive_from_an_earlier_one_of_its_batch(memory: Memory) -> None:
    stored = memory.add_episodes(T, [
        {"id": "turn", "at": AT, "text": "Mira moved to Oslo."},
        {"id": "summary", "at": AT, "text": "Mira lives in Oslo.", "kind": "event", "derived_from": ["turn"]},
    ])
    assert stored[1].derived_from == ("turn",)
    memory.forget_episode(T, "turn")
    assert memory.episode(T, "summary") is None


def test_a_derived_episode_must_not_name_a_later_one_of_its_batch(memory: Memory) -> None:
    with pytest.raises(NotFoundError, match="derived_from: no readable episode 'turn'"):
        memory.add_episodes(T, [
            {"id": "summary", "at": AT, "text": "Mira lives in Oslo.", "derived_from": ["turn"]},
            {"id": "turn", "at": AT, "text": "Mira moved to Oslo."},
        ])
    assert memory.episodes(T) == []


def test_an_erased_id_in_a_batch_refuses_the_whole_batch(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock, embedder=HashingEmbedder()) as memory:
        memory.add_episode(T, "gone", AT, "Mira moved to Oslo.")
        memory.forget_episode(T, "gone")
        with pytest.raises(ConflictError, match="'gone' was erased"):
            memory.add_episodes(T, [
                {"id": "kept", "at": AT, "text": "Ola moved to Bergen."},
                {"id": "gone", "at": AT, "text": "Mira moved to Oslo."},
            ])
        assert memory.episodes(T) == []
        assert [e.id for e in memory.add_episodes(T, [{"id": "kept", "at": AT, "text": "Ola moved to Bergen."}])] \
            == ["kept"]
        assert [h.episode_id for h in memory.search(T, "Bergen", limit=5)] == ["kept"]
