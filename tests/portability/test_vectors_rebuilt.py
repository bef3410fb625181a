"""Search vectors are not carried: a destination with an embedder builds its own for the
imported (or moved) tenant's episodes, current facts and document chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam import Memory
from sgam.search import load_embedder
from sgam.search.embedders import Embedder
from tests.conftest import ManualClock, Store

TENANT = "acme"


@pytest.fixture(scope="module")
def wordllama() -> Embedder:
    return load_embedder("wordllama")


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _fill(memory: Memory) -> None:
    memory.add_episodes(TENANT, [{"id": f"e{n}", "at": "2026-06-01T00:00:00Z", "text": text}
                                 for n, text in enumerate(["moving house to Lisbon", "baking sourdough bread",
                                                           "renewing a passport"])])
    memory.write(TENANT, "ann", "city", "Lisbon", "2026-06-01T00:00:00Z", "e0")
    memory.write(TENANT, "ann", "hobby", "baking", "2026-06-01T00:00:00Z", "e1")
    memory.documents.create(TENANT, "/memories/notes.md", "the passport expires in June\n")


def _complete(memory: Memory, embedder: Embedder) -> None:
    status = memory.index_status(TENANT)
    assert status.searching == embedder.name
    assert (status.episodes, status.facts) == (3, 2)
    assert status.chunks >= 1
    assert (status.episodes_embedded, status.facts_embedded, status.chunks_embedded) == \
        (status.episodes, status.facts, status.chunks)
    assert memory.search(TENANT, "a new home in Portugal")


def test_an_import_builds_the_destinations_vectors(store: Store, tmp_path: Path, wordllama: Embedder) -> None:
    exported = tmp_path / "acme.jsonl"
    with Memory(f"sqlite:///{tmp_path / 'source.db'}", clock=ManualClock()) as source:
        _fill(source)
        source.export_tenant(TENANT, exported)
    with Memory(store.url, clock=ManualClock(), embedder=wordllama) as destination:
        destination.import_tenant(TENANT, exported)
        _complete(destination, wordllama)


def test_a_move_builds_the_destinations_vectors(store: Store, tmp_path: Path, wordllama: Embedder) -> None:
    with Memory(f"sqlite:///{tmp_path / 'source.db'}", clock=ManualClock()) as source, \
            Memory(store.url, clock=ManualClock(), embedder=wordllama) as destination:
        _fill(source)
        source.move_tenant(TENANT, destination)
        _complete(destination, wordllama)


def test_without_an_embedder_an_import_builds_no_vectors(store: Store, tmp_path: Path) -> None:
    exported = tmp_path / "acme.jsonl"
    with Memory(f"sqlite:///{tmp_path / 'source.db'}", clock=ManualClock()) as source:
        _fill(source)
        source.export_tenant(TENANT, exported)
    with Memory(store.url, clock=ManualClock()) as destination:
        destination.import_tenant(TENANT, exported)
        assert destination.index_status(TENANT).searching is None
