"""PostgreSQL ranks a tenant's episode vectors from a copy in process (store/postgres/
vectors.py), used only when the vector tally (``episode_vector_counts``) says, in the
search's own snapshot, that the copy is the tenant's vectors. Its answers must be the
server's exact scan's after every change another process can make: appended episodes,
vectors committed out of key order, erasure, re-embedding."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tests.conftest import PostgresUrls
from tests.store.test_postgres_vector_heads import TENANT, Noise, _episodes

from sgam import Memory, StoreError
from sgam.ledger.write import validate_episode
from sgam.search import embed_checked
from sgam.store import SearchFilter
from sgam.store.postgres import PostgresBackend, search

FILTERS = [SearchFilter(), SearchFilter(since=1_704_412_800_000_000), SearchFilter(until=1_705_000_000_000_000),
           SearchFilter(known_at=4_000_000_000_000_000), SearchFilter(session="s1")]
QUESTIONS = ("tea time", "river crossing", "winter letter 7", "garden story 12")


def _answers(memory: Memory, monkeypatch: pytest.MonkeyPatch, in_process: bool) -> list[list[int]]:
    monkeypatch.setattr(search, "VECTORS_IN_PROCESS", in_process)
    index = memory._search.index
    with memory.backend.read(TENANT) as reader:
        return [index.vector_episodes(reader, Noise.name, Noise().embed([q])[0], flt, 15)
                for q in QUESTIONS for flt in FILTERS]


def _same_as_the_server(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    served = _answers(memory, monkeypatch, False)
    copied = _answers(memory, monkeypatch, True)
    assert copied == served
    assert all(copied)
    return copied


def _copies(memory: Memory) -> int:
    return len(memory._search.index._vectors._copies)


def test_the_copy_ranks_as_the_server_does_through_every_change(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "HEADS_FROM_EPISODES", 10**9)  # the server's exact scan to compare with
    with Memory(postgres.app, embedder=Noise()) as reader, Memory(postgres.app, embedder=Noise()) as writer:
        writer.add_episodes(TENANT, _episodes(120))
        _same_as_the_server(reader, monkeypatch)
        assert _copies(reader) == 1
        writer.add_episodes(TENANT, [{"id": "late", "at": "2024-01-05T00:00:00Z", "text": "tea time story"}])
        assert "late" in _hits(reader, "tea time story")  # appended after the copy: caught up
        _same_as_the_server(reader, monkeypatch)
        writer.forget_episode(TENANT, "late")
        writer.forget_episode(TENANT, "e3")
        assert "late" not in _hits(reader, "tea time story")
        _same_as_the_server(reader, monkeypatch)
        flipped = -Noise().embed(["tea story 0"])[0]  # e0 embedded again: its row rewritten under its key
        flipped /= np.linalg.norm(flipped)
        writer._search.backend.run_write(TENANT, lambda txn: writer._search.index.put_episode_vectors(
            txn, Noise.name, [("e0", flipped)]))
        _same_as_the_server(reader, monkeypatch)


def _hits(memory: Memory, question: str) -> list[str]:
    """The episodes the vector channel ranks first for ``question`` (from the copy)."""
    index = memory._search.index
    with memory.backend.read(TENANT) as reader:
        keys = index.vector_episodes(reader, Noise.name, Noise().embed([question])[0], SearchFilter(), 3)
        rows = index.episodes_by_key(reader, keys)
    return [rows[key].row.episode_id for key in keys]


def test_vectors_committed_out_of_key_order_are_found(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> None:
    """A vector whose key is below the copy's last one (an episode recorded without an
    embedder, embedded after a later episode was: as when a writer takes its keys
    first and commits last): reading what follows the copy's last key misses it, and
    the tally says so."""
    monkeypatch.setattr(search, "HEADS_FROM_EPISODES", 10**9)
    with Memory(postgres.app, embedder=Noise()) as reader, Memory(postgres.app, embedder=Noise()) as writer, \
            Memory(postgres.app) as unembedded:
        writer.add_episodes(TENANT, _episodes(30))
        unembedded.add_episode(TENANT, "early", "2024-01-03T00:00:00Z", "kettle first")
        writer.add_episode(TENANT, "later", "2024-01-04T00:00:00Z", "kettle second")
        assert "later" in _hits(reader, "kettle first") and "early" not in _hits(reader, "kettle first")
        assert writer.index_episodes(TENANT) == 1
        assert "early" in _hits(reader, "kettle first")
        _same_as_the_server(reader, monkeypatch)


def test_a_read_is_one_snapshot(postgres: PostgresUrls) -> None:
    """Every statement of a read sees the state its first statement saw, whatever
    commits meanwhile (a recall's facts, evidence and vector tally agree)."""
    with Memory(postgres.app) as memory, Memory(postgres.app) as other:
        memory.add_episode(TENANT, "e1", "2024-01-01T00:00:00Z", "first")
        with memory.backend.read(TENANT) as reader:
            assert reader.episode("e1") is not None
            other.add_episode(TENANT, "e2", "2024-01-02T00:00:00Z", "second")
            assert reader.episode("e2") is None
        with memory.backend.read(TENANT) as reader:
            assert reader.episode("e2") is not None


def test_a_failed_read_leaves_no_transaction_open(postgres: PostgresUrls) -> None:
    one = PostgresBackend(postgres.app, max_size=1)
    with Memory(backend=one) as memory:
        memory.add_episode(TENANT, "e1", "2024-01-01T00:00:00Z", "first")
        with pytest.raises(StoreError), one.read(TENANT) as reader:
            reader._db.rows("SELECT 1 / 0", ())  # type: ignore[attr-defined]
        with one.read(TENANT) as reader:  # the one connection, clean again
            assert reader.episode("e1") is not None


def _store_episodes(memory: Memory, episodes: list[dict[str, str]]) -> None:
    rows = [validate_episode(e["id"], e["at"], e["text"], None, "message", e["session"], None, TENANT)
            for e in episodes]
    vectors = embed_checked(Noise(), [row.text for row in rows])

    def work(txn: Any) -> None:
        memory.ledger.writes.add_episodes(txn, [(row, ()) for row in rows])
        memory.ledger.search.index.put_episode_vectors(txn, Noise.name, [
            (row.episode_id, vectors[i]) for i, row in enumerate(rows)])

    memory.backend.run_write(TENANT, work)
