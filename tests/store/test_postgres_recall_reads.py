"""A PostgreSQL recall is one read: one pooled connection, one snapshot, and a bounded
number of waits for the server (its first reads sent with the deadline probe, both
search channels overlapped in the pipeline). A recall that took a second connection
(the vector channel on a connection of its own, the document passages in a read of
their own) would fail here."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tests.conftest import PostgresUrls
from tests.store.round_trips import counted

from sgam import Memory

T = "acme"
WAITS = 15
"""Waits of the recall below, which names a fact: the deadline probe, with the schemas,
consents, keys, vector tally and document passages sent after it; the fact's timeline,
its retired versions, its source, its subject's display name; the keyword and vector
candidates together; the neighbours' rows; which candidates hold the words; their
lineage; the source turn leading the evidence and its lineage; the document vectors;
the close; and two for names: which of the question's words are aliases, and the other
names of the subjects whose consent is read. (Before one read: three connections, the
vector channel and the document passages each in a read of its own.)"""


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": f"e{i}", "at": f"2024-01-{1 + i % 9:02d}T10:00:00Z", "speaker": ("ann", "bob")[i % 2],
         "session": f"s{i % 3}", "text": f"{('tea', 'river', 'passport', 'Lisbon')[i % 4]} note {i} about "
                                        f"{('kettles', 'bridges', 'deadlines', 'moving')[i % 4]}"}
        for i in range(60)
    ])
    memory.write(T, "ann", "city", "Lisbon", "2024-01-04T10:00:00Z", "e3")
    memory.documents.create(T, "/memories/ann.md", "Ann moved to Lisbon\nshe likes tea\n")


def _counted(memory: Memory, monkeypatch: pytest.MonkeyPatch, question: str) -> Counter[str]:
    """Pool checkouts, statements and waits for the server during one recall."""
    with counted(memory, monkeypatch) as seen:
        result = memory.recall(T, question)
    assert result.items
    return seen


def test_a_recall_takes_one_connection(postgres: PostgresUrls, hashing: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(postgres.app, embedder=hashing) as memory:
        _seed(memory)
        memory.recall(T, "where does ann live")  # the vector copy and the schema cache filled
        for question in ("where does ann live", "tea kettles", "Lisbon deadlines"):
            seen = _counted(memory, monkeypatch, question)
            assert seen["connections"] == 1, seen
            if question == "where does ann live":
                result = memory.recall(T, question)
                assert any(item.kind == "fact" for item in result.items)
                assert any(item.kind == "document" for item in result.items)
                assert seen["waits"] <= WAITS, seen


def test_concurrent_recalls_share_a_small_pool(postgres: PostgresUrls, hashing: Any) -> None:
    """Each recall holds one connection and never waits for a second: four recalls at
    once on a pool of two all finish."""
    from concurrent.futures import ThreadPoolExecutor

    from sgam.store.postgres import PostgresBackend

    with Memory(backend=PostgresBackend(postgres.app, max_size=2, pool_timeout=20), embedder=hashing) as memory:
        _seed(memory)
        expected = memory.recall(T, "tea kettles").text
        with ThreadPoolExecutor(4) as workers:
            texts = list(workers.map(lambda _: memory.recall(T, "tea kettles").text, range(12)))
    assert texts == [expected] * 12
