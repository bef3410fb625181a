"""Revoked consent reaches documents: a passage that names the subject (a word of its
text or of its document's path, decided as for episodes) is left out of document search
and of recall while consent is revoked, for the purpose in question; granting again
brings it back. Reading or editing a document by its path shows it as stored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sgam import Memory
from sgam.tools import MemoryTool
from tests.conftest import HashingEmbedder, ManualClock

T = "acme"
NOTES = "/memories/notes.md"
QUESTION = "Which colours does Mira like, teal or navy?"


@pytest.fixture(params=["keyword", "vector"])
def mem(request: pytest.FixtureRequest, store_url: str, clock: ManualClock) -> Iterator[Memory]:
    embedder = HashingEmbedder() if request.param == "vector" else None
    with Memory(store_url, clock=clock, embedder=embedder) as memory:
        memory.documents.create(T, NOTES, "Mira likes teal and navy.\n")
        memory.documents.create(T, "/memories/team.md", "Ola likes teal mugs.\n")
        memory.documents.create(T, "/memories/people/mira.md", "Prefers teal slides.\n")
        memory.documents.index(T)
        yield memory


def _paths(memory: Memory, query: str, **options: str) -> set[str]:
    return {hit.path for hit in memory.documents.search(T, query, limit=10, **options)}


def test_search_and_recall_leave_out_passages_naming_a_revoked_subject(mem: Memory) -> None:
    assert _paths(mem, "teal navy") == {NOTES, "/memories/team.md", "/memories/people/mira.md"}
    assert "Mira likes teal and navy." in mem.recall(T, QUESTION, budget=2000).text
    mem.consent(T, "MIRA", False)
    assert _paths(mem, "teal navy") == {"/memories/team.md"}  # named in the text, or in the path
    recalled = mem.recall(T, QUESTION, budget=2000)
    assert "teal and navy" not in recalled.text and "mira" not in recalled.text.lower()
    assert all(item.citation.path in (None, "/memories/team.md") for item in recalled.items)
    mem.consent(T, "MIRA", True)
    assert _paths(mem, "teal navy") == {NOTES, "/memories/team.md", "/memories/people/mira.md"}
    assert "Mira likes teal and navy." in mem.recall(T, QUESTION, budget=2000).text


def test_a_purpose_revocation_hides_passages_for_that_purpose_only(mem: Memory) -> None:
    mem.consent(T, "mira", False, purpose="ads")
    assert NOTES not in _paths(mem, "teal navy", purpose="ads")
    assert NOTES in _paths(mem, "teal navy")
    assert "teal and navy" not in mem.recall(T, QUESTION, budget=2000, purpose="ads").text
    assert "Mira likes teal and navy." in mem.recall(T, QUESTION, budget=2000).text


def test_a_document_read_by_its_path_is_shown_as_stored(mem: Memory) -> None:
    mem.consent(T, "mira", False)
    assert mem.documents.read(T, NOTES).content == "Mira likes teal and navy.\n"
    viewed = MemoryTool(mem, T).run({"command": "view", "path": NOTES})
    assert not viewed.is_error and "Mira likes teal and navy." in viewed.text
