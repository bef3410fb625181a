"""Reads named ahead (``Reader.prefetch``) answer exactly as the same reads asked plainly,
on both backends; on PostgreSQL each statement sent ahead is taken by the read it names,
so a read that stopped building its statement with the function its request's statement
comes from (``postgres/ahead.py``), or stopped taking what was sent, fails here. And
``members`` and ``linked`` make their first reads in the deadline probe's round trip."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from tests.conftest import HashingEmbedder, PostgresUrls, Store
from tests.store.round_trips import counted

from sgam import Memory
from sgam._core.purpose import members_prefix
from sgam._core.time import to_micros
from sgam.store import (
    AttributeMeaning,
    AttributeSchemas,
    Consents,
    Declared,
    EmbedderState,
    Holding,
    KeywordChunks,
    KeywordEpisodes,
    KeywordQuery,
    MatchingKeys,
    Members,
    ReadAhead,
    Reader,
    RevokingConsents,
    SearchFilter,
    SubjectMeaning,
    UnfinishedBackfills,
    VectorTally,
)
from sgam.store.postgres.backend import PostgresReader

T1 = "2026-01-01T00:00:00Z"
AT = to_micros(datetime(2026, 1, 2, tzinfo=UTC))


def _graph(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "a supply chain of cogs and bolts")
    memory.declare("t", "supplier", "subject", cardinality="many")
    for buyer, seller in (("acme", "cogs"), ("acme", "bolts"), ("bolts", "cogs")):
        memory.write("t", buyer, "supplier", seller, T1, "e1")
    memory.write("t", "acme", "city", "Oslo", T1, "e1")
    memory.consent("t", "zed", False, purpose="marketing")
    memory.documents.create("t", "/memories/acme.md", "acme buys cogs\nand bolts\n")


def _vector(memory: Memory) -> np.ndarray:
    embedder = memory.ledger.search.embedder
    assert embedder is not None
    return embedder.embed(["cogs"])[0]


def _reads(memory: Memory) -> list[tuple[ReadAhead, Callable[[Reader], object]]]:
    """Each kind of request with the read it names."""
    index = memory.ledger.search.index
    vector = _vector(memory)
    model = memory.ledger.search.embedder.name  # type: ignore[union-attr]
    prefix = members_prefix("supplier", None)
    return [
        (EmbedderState(), lambda r: index.embedder_state(r)),
        (AttributeSchemas(), lambda r: r.attribute_schemas()),
        (Declared("supplier"), lambda r: r.declared("supplier")),
        (Consents("zed"), lambda r: r.consents("zed")),
        (RevokingConsents(("", "marketing")), lambda r: r.revoking_consents(["", "marketing"])),
        (Members("acme", prefix, AT, None), lambda r: r.members("acme", prefix, AT, None)),
        (MatchingKeys(("acme", "city"), AT, 10, None), lambda r: index.matching_keys(r, ["acme", "city"], AT, 10)),
        (VectorTally(model, int(vector.shape[0])),
         lambda r: index.vector_episodes(r, model, vector, SearchFilter(until=AT), 5)),
        (KeywordEpisodes(("cogs",), 5, SearchFilter(until=AT)),
         lambda r: index.candidate_episodes(r, SearchFilter(until=AT), KeywordQuery(["cogs"], 5), None)),
        (KeywordChunks(("cogs",), 5), lambda r: r.documents().keyword_chunks(["cogs"], 5)),
        (SubjectMeaning("acme", None), lambda r: r.resolve_subject("acme")),
        (AttributeMeaning("supplier", AT), lambda r: r.resolve_attribute("supplier", AT)),
        (Holding("acme", "city", AT, None), lambda r: r.get("acme", "city", AT, None)),
        (Holding("acme", "city", AT, AT), lambda r: r.get("acme", "city", AT, AT)),
        (UnfinishedBackfills(), lambda r: r.unfinished_backfills()),
    ]


def test_reads_named_ahead_answer_as_asked(store: Store, clock: Any, hashing: HashingEmbedder) -> None:
    with Memory(store.url, clock=clock, embedder=hashing) as memory:
        _graph(memory)
        memory.index_episodes("t")
        for request, read in _reads(memory):
            with memory.backend.read("t") as reader:
                plain = read(reader)
            with memory.backend.read("t") as reader:
                reader.prefetch([request])
                assert reader.lifecycle_due(AT) is False
                assert read(reader) == plain, request
                if isinstance(reader, PostgresReader):
                    assert not reader._session.ahead, f"{request} was sent ahead but its read asked again"
            with memory.backend.read("t") as reader:  # named after the read's first statement
                reader.attribute_schemas()
                reader.prefetch([request])
                assert read(reader) == plain, request
                if isinstance(reader, PostgresReader):
                    assert not reader._session.ahead, f"{request} was sent ahead but its read asked again"


MEMBERS_WAITS = 8
"""Waits of ``members`` below: the deadline probe, with the subject's consents, the set's
schema and its members sent behind it; what the subject's name means; the members'
subjects under every name (their names, their other names, their consents); what each
member's value names; the close. Without the reads sent ahead: 11."""
LINKED_WAITS = 8
"""Waits of ``linked`` below: the deadline probe, with the relation's schema and the
target's consents sent behind it; what the target's name means and its other names; the
subjects naming it; theirs under every name (three); the close. Without: 10."""


def test_members_and_linked_read_first_with_the_deadline_probe(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Memory(postgres.app) as memory:
        _graph(memory)
        calls: dict[str, tuple[Callable[[], object], int]] = {
            "members": (lambda: memory.members("t", "acme", "supplier"), MEMBERS_WAITS),
            "linked": (lambda: memory.linked("t", "supplier", "cogs"), LINKED_WAITS),
        }
        for name, (call, bound) in calls.items():
            expected = call()
            with counted(memory, monkeypatch) as ahead:
                assert call() == expected
            with monkeypatch.context() as patch:
                patch.setattr(PostgresReader, "prefetch", lambda self, requests: None)
                with counted(memory, monkeypatch) as plain:
                    assert call() == expected
            assert ahead["connections"] == plain["connections"] == 1, name
            assert ahead["waits"] <= bound < plain["waits"], (name, ahead, plain)


RECALL_WAITS = {True: 10, False: 7}
"""Waits of the recall below, with an embedder and without: its first reads (the embedder
state, the schemas, the revoking consents, the matching keys, then the vector tally, or
without an embedder the keyword candidates, and the document passages) are sent behind the
deadline probe; ``test_postgres_recall_reads.py`` says what the rest are. Without the
reads sent ahead: 16 and 13."""


@pytest.mark.parametrize("embedded", [True, False])
def test_a_recall_reads_first_with_the_deadline_probe(
    postgres: PostgresUrls, hashing: HashingEmbedder, monkeypatch: pytest.MonkeyPatch, embedded: bool,
) -> None:
    from tests.store.test_postgres_recall_reads import T, _seed

    with Memory(postgres.app, embedder=hashing if embedded else None) as memory:
        _seed(memory)
        expected = memory.recall(T, "tea kettles").text  # the vector copy filled, the embedder seen
        with counted(memory, monkeypatch) as ahead:
            assert memory.recall(T, "tea kettles").text == expected
        with monkeypatch.context() as patch:
            patch.setattr(PostgresReader, "prefetch", lambda self, requests: None)
            with counted(memory, monkeypatch) as plain:
                assert memory.recall(T, "tea kettles").text == expected
        assert ahead["connections"] == plain["connections"] == 1
        assert ahead["waits"] <= RECALL_WAITS[embedded] < plain["waits"], (ahead, plain)
