"""Documents with every revision, LangGraph store items with their history, checkpoint
threads (or not, with ``threads=False``), recorded actions and the audit log are carried
with the ledger, and answer the same in the destination."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from sgam import Memory
from sgam.langgraph import SgamSaver, SgamStore
from tests.conftest import BACKENDS, ManualClock, PostgresUrls, Store

from .reads import records
from .test_bad_input import TENANT, fill


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


@pytest.fixture
def other_url(store: Store, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if store.backend == "sqlite" and "postgres" in BACKENDS:
        urls: PostgresUrls = request.getfixturevalue("postgres")
        return urls.app
    return f"sqlite:///{tmp_path / 'other.db'}"


def _features(memory: Memory, clock: ManualClock) -> None:
    fill(memory)
    memory.add_episode(TENANT, "roadmap", "2026-06-05T00:00:00Z", "the quarterly roadmap is due")
    memory.documents.create(TENANT, "/memories/plan.md", "step one\n")
    clock.advance(60)
    memory.documents.str_replace(TENANT, "/memories/plan.md", "one", "two")
    items = SgamStore(memory, tenant=TENANT)
    items.put(("prefs",), "theme", {"colour": "blue"})
    clock.advance(60)
    items.put(("prefs",), "theme", {"colour": "green"})
    saver = SgamSaver(memory, tenant=TENANT)
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": "thread notes"}
    saver.put({"configurable": {"thread_id": "t-1"}, "metadata": {}},  # type: ignore[arg-type]
              checkpoint, {"source": "input", "step": -1}, {})
    memory.once(TENANT, "send-invoice-7", {"amount": 7}, lambda key: {"sent": key})


def test_features_are_carried_and_answer_the_same(store: Store, other_url: str, tmp_path: Path) -> None:
    clock = ManualClock()
    with Memory(store.url, clock=clock) as source, Memory(other_url, clock=clock) as destination:
        _features(source, clock)
        first, again = tmp_path / "first.jsonl", tmp_path / "again.jsonl"
        source.export_tenant(TENANT, first)
        destination.import_tenant(TENANT, first)
        destination.export_tenant(TENANT, again)
        assert records(first) == records(again)
        tables = {line.split('"table":"')[1].split('"')[0] for line in records(first)}
        assert {"documents", "document_revisions", "store_items", "saver_checkpoints", "saver_threads", "actions",
                "audit_log", "operations", "tombstones"} <= tables
        assert [r.content for r in destination.documents.history(TENANT, "/memories/plan.md")] == [
            r.content for r in source.documents.history(TENANT, "/memories/plan.md")]
        assert destination.documents.read(TENANT, "/memories/plan.md").content == "step two\n"
        item = SgamStore(destination, tenant=TENANT).get(("prefs",), "theme")
        assert item is not None and item.value == {"colour": "green"}
        saved = SgamSaver(destination, tenant=TENANT).get_tuple({"configurable": {"thread_id": "t-1"}})
        assert saved is not None and saved.checkpoint["channel_values"] == {"notes": "thread notes"}
        assert destination.once(TENANT, "send-invoice-7", {"amount": 7}, lambda key: {"again": key}) == {
            "sent": "send-invoice-7"}
        found = [hit.episode_id for hit in destination.search(TENANT, "roadmap")]
        assert found and found == [hit.episode_id for hit in source.search(TENANT, "roadmap")]
        assert [entry.action for entry in destination.audit(TENANT)] == [
            entry.action for entry in source.audit(TENANT)]


def test_without_threads_the_checkpoints_stay_behind(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    with Memory(store.url, clock=clock) as source:
        _features(source, clock)
        path = tmp_path / "no-threads.jsonl"
        source.export_tenant(TENANT, path, threads=False)
    assert not [line for line in records(path) if '"table":"saver_' in line]
    assert [line for line in records(path) if '"table":"store_items"' in line]
