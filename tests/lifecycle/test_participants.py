"""Erasure and expiry reach a feature's data through the participants its ledger was given,
never by importing the feature: a participant added to a ``Memory``'s ledger is told of
every erased episode and subject, every value no longer held, every dropped text, every
name an erasure removed, every settle and every purge's retention, inside the same unit
of work (what it removes there commits or rolls back with the erasure)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from sgam import Memory, NotFoundError
from sgam.lifecycle.participants import Erased, Participant, Reach, Retained
from sgam.memory.facade import PARTICIPANTS
from sgam.store import WriteTransaction

from ..conftest import ManualClock

T = "acme"


class Recorder(Participant):
    """Records each hook call as (hook, tenant, arguments)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, object]] = []

    def episodes_erased(self, txn: WriteTransaction, episode_ids: list[str]) -> Erased | None:
        self.calls.append(("episodes_erased", txn.tenant, sorted(episode_ids)))
        return Erased(documents=len(episode_ids))

    def texts_dropped(self, txn: WriteTransaction, episode_ids: list[str]) -> None:
        self.calls.append(("texts_dropped", txn.tenant, sorted(episode_ids)))

    def subjects_erased(self, txn: WriteTransaction, names: list[str]) -> Erased | None:
        self.calls.append(("subjects_erased", txn.tenant, sorted(names)))
        return None

    def values_erased(self, txn: WriteTransaction, subject: str, attribute: str, gone: set[str]) -> None:
        self.calls.append(("values_erased", txn.tenant, (subject, attribute, sorted(gone))))

    def names_erased(self, txn: WriteTransaction, names: list[str], now: int) -> None:
        self.calls.append(("names_erased", txn.tenant, sorted(names)))

    def settle(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Erased | None:
        self.calls.append(("settle", txn.tenant, call))
        return None

    def retain(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Retained | None:
        self.calls.append(("retain", txn.tenant, call))
        return Retained(threads_pruned=1)


@pytest.fixture
def recorder(memory: Memory) -> Recorder:
    recorder = Recorder()
    memory.ledger.reach = replace(memory.ledger.reach, participants=(*memory.ledger.reach.participants, recorder))
    return recorder


def test_every_memory_takes_part_with_store_items_documents_extraction_records_threads_and_responses(
    memory: Memory,
) -> None:
    assert memory.ledger.reach.participants == PARTICIPANTS
    assert [type(p).__name__ for p in PARTICIPANTS] == ["StoreItems", "DocumentRevisions", "ExtractionRecords",
                                                        "CheckpointThreads", "StoredResponses"]


LIFECYCLE = Path(__file__).resolve().parents[2] / "src" / "sgam" / "lifecycle"
OWNED = {"checkpoints", "delete_thread", "delete_expired_thread", "redact_idempotency", "idempotency_responses_naming"}
"""What the checkpoint and stored-response participants reach in the store."""


def test_erasure_and_expiry_reach_threads_and_stored_responses_only_through_participants() -> None:
    for module in ("erasure.py", "expiry.py", "participants.py"):
        tree = ast.parse((LIFECYCLE / module).read_text())
        named = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)} & OWNED
        assert named == set(), f"lifecycle/{module} names {sorted(named)}"


def test_an_episode_erasure_tells_each_participant_of_it_and_its_derivatives(
    memory: Memory, recorder: Recorder, clock: ManualClock,
) -> None:
    memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "Mira lives in Oslo.")
    memory.add_episode(T, "s1", "2026-06-01T00:00:00Z", "Summary: Oslo.", derived_from=["e1"])
    memory.write(T, "mira", "city", "Oslo", "2026-06-01T00:00:00Z", "e1")
    clock.advance()
    result = memory.forget_episode(T, "e1")
    assert ("episodes_erased", T, ["e1", "s1"]) in recorder.calls
    assert ("names_erased", T, ["e1", "mira", "s1"]) in recorder.calls  # after every other hook
    assert recorder.calls.index(("names_erased", T, ["e1", "mira", "s1"])) == len(recorder.calls) - 1
    assert ("values_erased", T, ("mira", "city", ['"Oslo"'])) in recorder.calls
    assert (result.operations_removed, result.episodes_removed) == (1, 2)
    entry = next(row for row in memory.audit(T) if row.action == "forget_episode")
    assert entry.detail["revisions"] == 2  # what the recorder removed is counted with the rest
    assert memory.get(T, "mira", "city") is None


def test_a_subject_erasure_tells_each_participant_every_name_of_the_subject(
    memory: Memory, recorder: Recorder, clock: ManualClock,
) -> None:
    memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "Mira, also called Mi, lives in Oslo.")
    memory.write(T, "mira", "city", "Oslo", "2026-06-01T00:00:00Z", "e1")
    memory.write(T, "mi", "pet", "cat", "2026-06-01T00:00:00Z", "e1")
    clock.advance()
    memory.alias(T, "mi", "mira")
    clock.advance()
    memory.forget_subject(T, "mira")
    assert ("subjects_erased", T, ["mi", "mira"]) in recorder.calls
    assert ("names_erased", T, ["mi", "mira"]) in recorder.calls


def test_expiry_settles_each_participant_and_drops_texts_through_them(
    memory: Memory, recorder: Recorder, clock: ManualClock,
) -> None:
    clock.set("2026-06-01T00:00:00+00:00")
    memory.retention(T, "transcripts", "PT1H", on_expiry="keep_facts")
    memory.add_episode(T, "t1", "2026-06-01T00:00:00Z", "Ann likes tea.", retention="transcripts")
    recorder.calls.clear()
    clock.advance(7200)
    memory.purge(T)
    assert ("texts_dropped", T, ["t1"]) in recorder.calls
    assert ("names_erased", T, ["t1"]) in recorder.calls
    assert ("settle", T, "purge") in recorder.calls
    assert ("retain", T, "purge") in recorder.calls


def test_a_purge_applies_each_participants_retention_and_counts_what_it_pruned(
    memory: Memory, recorder: Recorder,
) -> None:
    memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "Ann likes tea.")
    result = memory.purge(T)
    assert ("retain", T, "purge") in recorder.calls
    assert result.threads_pruned == 1


def test_a_document_erasure_tells_each_participant_what_its_revisions_quoted(
    memory: Memory, recorder: Recorder,
) -> None:
    memory.documents.create(T, "/memories/notes.md", "Mira lives in Oslo.\n")
    memory.documents.erase(T, "/memories/notes.md")
    erased = [call for call in recorder.calls if call[0] == "names_erased"]
    assert erased and "/memories/notes.md" in erased[-1][2]

def test_a_refused_erasure_reaches_no_participant(memory: Memory, recorder: Recorder) -> None:
    with pytest.raises(NotFoundError):
        memory.forget_episode(T, "nowhere")
    assert [call for call in recorder.calls if call[0] != "settle"] == []
