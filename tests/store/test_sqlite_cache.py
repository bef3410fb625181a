"""SQLite remembers each tenant's next deadline and whether it has consent statements
(``store/sqlite/cache.py``). What is remembered must never hide a deadline or a
revocation: not one made by another connection to the same file, nor one this
connection makes itself after the answer was remembered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from langgraph.store.base import PutOp
from tests.conftest import ManualClock

from sgam import Memory
from sgam.langgraph import SgamStore

T = "acme"
HOUR = 3600


def _seed(memory: Memory) -> None:
    memory.add_episode(T, "e1", "2026-01-01T00:00:00Z", "Mira moved to Oslo.")
    memory.write(T, "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")


def _primed(path: Path, clock: ManualClock) -> Memory:
    """A memory whose cache holds 'nothing ever due' and 'no consent statements'."""
    clock.set("2026-01-02T00:00:00+00:00")
    memory = Memory(f"sqlite:///{path}", clock=clock)
    _seed(memory)
    assert memory.get(T, "mira", "city") is not None
    assert memory.query(T) and memory.search(T, "Oslo")
    return memory


def test_a_revocation_by_another_connection_is_seen_at_once(tmp_path: Path, clock: ManualClock) -> None:
    with _primed(tmp_path / "m.db", clock) as memory, Memory(f"sqlite:///{tmp_path / 'm.db'}", clock=clock) as other:
        other.consent(T, "mira", False)
        assert memory.get(T, "mira", "city") is None
        assert memory.query(T) == []
        other.consent(T, "mira", True)
        assert memory.get(T, "mira", "city") is not None


def test_a_deadline_set_by_another_connection_is_kept(tmp_path: Path, clock: ManualClock) -> None:
    with _primed(tmp_path / "m.db", clock) as memory, Memory(f"sqlite:///{tmp_path / 'm.db'}", clock=clock) as other:
        other.write(T, "mira", "phone", "555", "2026-01-01T00:00:00Z", "e1", expires_at="2026-01-02T01:00:00Z")
        assert memory.get(T, "mira", "phone") is not None
        clock.advance(2 * HOUR)
        assert memory.get(T, "mira", "phone") is None
        assert memory.get(T, "mira", "city") is not None
        other.retention(T, "default", "PT1H")  # e1 was recorded two hours ago: due now
        assert memory.get(T, "mira", "city") is None
        assert memory.episode(T, "e1") is None


def _write_expiring(memory: Memory) -> None:
    memory.write(T, "mira", "city", "Bergen", "2026-01-02T00:00:00Z", "e1", expires_at="2026-01-02T01:00:00Z")


def _class_then_episode(memory: Memory) -> None:
    memory.retention(T, "brief", "PT1H")
    memory.add_episode(T, "e2", "2026-01-02T00:00:00Z", "Mira moved to Bergen.", retention="brief")
    memory.write(T, "mira", "city", "Bergen", "2026-01-02T00:00:00Z", "e2")


def _shorter_class(memory: Memory) -> None:
    memory.retention(T, "brief", "P30D")
    memory.add_episode(T, "e2", "2026-01-02T00:00:00Z", "Mira moved to Bergen.", retention="brief")
    memory.write(T, "mira", "city", "Bergen", "2026-01-02T00:00:00Z", "e2")
    clock_free_read = memory.get(T, "mira", "city")  # the 30-day deadline is remembered
    assert clock_free_read is not None and clock_free_read.value == "Bergen"
    memory.retention(T, "brief", "PT1H")


@pytest.mark.parametrize("change", [_write_expiring, _class_then_episode, _shorter_class],
                         ids=["write expires", "episode of a class", "class shortened"])
def test_a_deadline_this_connection_adds_after_the_answer_was_remembered(
    tmp_path: Path, clock: ManualClock, change: Callable[[Memory], None],
) -> None:
    with _primed(tmp_path / "m.db", clock) as memory:
        change(memory)
        current = memory.get(T, "mira", "city")
        assert current is not None and current.value == "Bergen"
        clock.advance(2 * HOUR)
        current = memory.get(T, "mira", "city")
        assert current is not None and current.value == "Oslo"


def test_a_document_and_an_item_deadline_added_after_the_answer_was_remembered(
    tmp_path: Path, clock: ManualClock,
) -> None:
    with _primed(tmp_path / "m.db", clock) as memory:
        memory.retention(T, "scratch", "PT1H")
        assert memory.get(T, "mira", "city") is not None  # remembers the class's (empty) deadline
        memory.documents.create(T, "/memories/notes.md", "a draft\n", retention="scratch")
        items = SgamStore(memory, tenant=T)
        items.batch([PutOp(("notes",), "k", {"v": 1}, ttl=30)])
        assert memory.documents.get(T, "/memories/notes.md") is not None
        assert items.get(("notes",), "k") is not None
        clock.advance(2 * HOUR)
        assert memory.documents.get(T, "/memories/notes.md") is None
        assert items.get(("notes",), "k") is None


def test_a_consent_stated_by_this_connection_after_none_was_remembered(tmp_path: Path, clock: ManualClock) -> None:
    with _primed(tmp_path / "m.db", clock) as memory:
        memory.consent(T, "mira", False, purpose="marketing")
        assert memory.get(T, "mira", "city") is not None
        assert memory.get(T, "mira", "city", purpose="marketing") is None


def test_a_read_sees_one_snapshot(tmp_path: Path, clock: ManualClock) -> None:
    """The statements of one read run in one transaction, so a commit by another
    connection in between cannot mix two states of the file."""
    with _primed(tmp_path / "m.db", clock) as memory, Memory(f"sqlite:///{tmp_path / 'm.db'}", clock=clock) as other:
        with memory.backend.read(T) as reader:
            before = reader.consents("mira")
            other.consent(T, "mira", False)
            assert reader.consents("mira") == before == []
        assert memory.get(T, "mira", "city") is None


def test_a_primed_read_asks_nothing_the_cache_remembers(tmp_path: Path, clock: ManualClock) -> None:
    """The portable reads ask the connection's memory first: once primed, a read of a
    tenant without consent statements, aliases, renames or backfills, and with nothing
    due, sends no statement about any of them."""
    with _primed(tmp_path / "m.db", clock) as memory:
        conn = memory.ledger.backend._conn  # type: ignore[attr-defined]
        sent: list[str] = []
        conn.set_trace_callback(sent.append)
        try:
            assert memory.get(T, "mira", "city") is not None
        finally:
            conn.set_trace_callback(None)
    asked = " ".join(sent)
    assert sent
    for table in ("consents", "subject_resolution", "attribute_resolution", "backfills", "retention_classes"):
        assert f"FROM {table}" not in asked, table
