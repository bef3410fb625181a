"""``SgamSaver`` beyond LangGraph's conformance suite: tenants, the strict serializer,
bad input, erasure and retention, and a real graph interrupted, pruned and resumed."""

from __future__ import annotations

import dataclasses
import uuid
from typing import TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from sgam import Memory, NotFoundError, StoreError, ValidationError
from sgam.langgraph import SgamSaver

from ..conftest import Store

MARKER = "zq-checkpoint-marker-8841"


@dataclasses.dataclass
class Draft:
    title: str


class State(TypedDict):
    topic: str
    draft: str
    published: bool


def _graph(saver: SgamSaver) -> object:
    def draft(state: State) -> dict[str, str]:
        return {"draft": f"report on {state['topic']}"}

    def approve(state: State) -> dict[str, str]:
        decision = interrupt({"draft": state["draft"]})
        return {"draft": f"{state['draft']} ({decision})"}

    def publish(state: State) -> dict[str, bool]:
        return {"published": True}

    builder = StateGraph(State)
    builder.add_node("draft", draft)
    builder.add_node("approve", approve)
    builder.add_node("publish", publish)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=saver)


def _config(thread: str, **metadata: object) -> dict[str, object]:
    return {"configurable": {"thread_id": thread}, "metadata": metadata}


def _put(saver: SgamSaver, thread: str, value: object) -> dict[str, object]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": value}
    return saver.put(_config(thread), checkpoint, {"source": "input", "step": -1}, {})  # type: ignore[arg-type]


def test_a_thread_of_another_tenant_is_not_readable_even_by_its_id(memory: Memory) -> None:
    acme, globex = SgamSaver(memory, tenant="acme"), SgamSaver(memory, tenant="globex")
    stored = _put(acme, "t-1", "acme's notes")
    assert acme.get_tuple(stored) is not None  # type: ignore[arg-type]
    assert globex.get_tuple(stored) is None  # type: ignore[arg-type]
    assert globex.get_tuple(_config("t-1")) is None  # type: ignore[arg-type]
    assert list(globex.list(None)) == []
    globex.delete_thread("t-1")
    globex.prune(["t-1"], strategy="delete")
    assert acme.get_tuple(stored) is not None  # type: ignore[arg-type]


def test_a_thread_of_another_tenant_is_not_writable_even_by_its_ids(memory: Memory) -> None:
    """The same thread and checkpoint ids from another tenant are that tenant's own: a
    put, its pending writes and an interrupt land there and change nothing of the first."""
    acme, globex = SgamSaver(memory, tenant="acme"), SgamSaver(memory, tenant="globex")
    stored = _put(acme, "t-1", "acme's notes")
    acme.put_writes(stored, [("notes", "acme's write")], "task-1")  # type: ignore[arg-type]
    checkpoint = empty_checkpoint()
    checkpoint["id"] = stored["configurable"]["checkpoint_id"]  # type: ignore[index]
    checkpoint["channel_values"] = {"notes": "globex's notes"}
    globex.put(_config("t-1"), checkpoint, {"source": "input", "step": -1}, {})  # type: ignore[arg-type]
    globex.put_writes(stored, [("notes", "globex's write"), ("__interrupt__", "globex")], "task-1")  # type: ignore[arg-type]
    ours = acme.get_tuple(stored)  # type: ignore[arg-type]
    assert ours is not None and ours.checkpoint["channel_values"] == {"notes": "acme's notes"}
    assert ours.pending_writes == [("task-1", "notes", "acme's write")]
    theirs = globex.get_tuple(stored)  # type: ignore[arg-type]
    assert theirs is not None and theirs.checkpoint["channel_values"] == {"notes": "globex's notes"}
    assert sorted(write[1] for write in theirs.pending_writes or []) == ["__interrupt__", "notes"]
    assert [thread.thread_id for thread in acme.threads()] == ["t-1"] == [t.thread_id for t in globex.threads()]


def test_the_strict_serializer_refuses_undeclared_types_and_stores_nothing(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    with pytest.raises(ValidationError) as refused:
        _put(saver, "t-1", Draft("q3"))
    assert "Draft" in str(refused.value)
    assert saver.get_tuple(_config("t-1")) is None  # type: ignore[arg-type]
    declared = SgamSaver(memory, tenant="acme", allowed_types=[Draft])
    _put(declared, "t-1", Draft("q3"))
    found = declared.get_tuple(_config("t-1"))  # type: ignore[arg-type]
    assert found is not None and found.checkpoint["channel_values"]["notes"] == Draft("q3")
    with pytest.raises(StoreError) as unreadable:  # a reader that does not declare it cannot read the stored blob
        saver.get_tuple(_config("t-1"))  # type: ignore[arg-type]
    assert "Draft" in str(unreadable.value) and unreadable.value.field == "checkpoint_id"


def test_bad_configs_are_refused(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    for config in ({}, {"configurable": {}}, {"configurable": {"thread_id": ""}}):
        with pytest.raises(ValidationError) as refused:
            saver.get_tuple(config)  # type: ignore[arg-type]
        assert refused.value.field == "thread_id"
    with pytest.raises(ValidationError):
        saver.put_writes(_config("t-1"), [("ch", 1)], "task")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        saver.prune("t-1", strategy="keep_latest")
    with pytest.raises(ValidationError):
        saver.prune(["t-1"], strategy="shrink")
    with pytest.raises(NotFoundError):
        saver.forget_thread("never-ran")
    checkpoint = empty_checkpoint()
    with pytest.raises(NotFoundError):  # a retention class the tenant never declared
        saver.put(_config("t-2", retention="fortnight"), checkpoint, {}, {})  # type: ignore[arg-type]
    assert list(saver.list(None)) == []


def test_forget_thread_leaves_no_residue_and_audits_without_content(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    stored = _put(saver, "t-1", f"the client said {MARKER}")
    saver.put_writes(stored, [("notes", f"pending {MARKER}")], "task-1")  # type: ignore[arg-type]
    assert memory.residue("acme", MARKER).found
    saver.forget_thread("t-1")
    assert saver.get_tuple(_config("t-1")) is None  # type: ignore[arg-type]
    assert not memory.residue("acme", MARKER).found, memory.residue("acme", MARKER)
    entries = memory.audit("acme")
    assert [entry.action for entry in entries][-1] == "forget_thread"
    assert all(MARKER not in repr(entry) and "t-1" not in repr(entry) for entry in entries)


def test_forget_subject_erases_the_threads_that_name_it(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": f"Mira said {MARKER}"}
    saver.put(_config("about-mira", subjects=["mira"]), checkpoint, {}, {})  # type: ignore[arg-type]
    _put(saver, "unrelated", "nothing personal")
    memory.forget_subject("acme", "mira")
    assert saver.get_tuple(_config("about-mira")) is None  # type: ignore[arg-type]
    assert saver.get_tuple(_config("unrelated")) is not None  # type: ignore[arg-type]
    assert not memory.residue("acme", MARKER).found


def test_an_interrupted_run_pruned_midway_resumes_to_the_end(store: Store) -> None:
    with SgamSaver.from_url(store.url, tenant="acme") as saver:
        graph = _graph(saver)
        config = {"configurable": {"thread_id": f"report-{uuid.uuid4()}"}}
        first = graph.invoke({"topic": "q3", "draft": "", "published": False}, config)  # type: ignore[attr-defined]
        assert "__interrupt__" in first
        snapshot = graph.get_state(config)  # type: ignore[attr-defined]
        assert snapshot.next == ("approve",)
        history = list(saver.list(config))  # type: ignore[arg-type]
        assert len(history) >= 3
        saver.prune([config["configurable"]["thread_id"]], strategy="keep_latest")
        assert len(list(saver.list(config))) == 1  # type: ignore[arg-type]
        assert graph.get_state(config).next == ("approve",)  # type: ignore[attr-defined]
        done = graph.invoke(Command(resume="approved"), config)  # type: ignore[attr-defined]
        assert done["published"] is True and done["draft"] == "report on q3 (approved)"


def test_update_state_then_resume(store: Store) -> None:
    with SgamSaver.from_url(store.url, tenant="acme") as saver:
        graph = _graph(saver)
        config = {"configurable": {"thread_id": f"report-{uuid.uuid4()}"}}
        graph.invoke({"topic": "q4", "draft": "", "published": False}, config)  # type: ignore[attr-defined]
        graph.update_state(config, {"topic": "q4", "draft": "edited by hand"})  # type: ignore[attr-defined]
        done = graph.invoke(Command(resume="ok"), config)  # type: ignore[attr-defined]
        assert done["draft"] == "edited by hand (ok)" and done["published"] is True


def test_retention_prunes_old_history_keeps_runs_resumable_and_erases_expired_threads(
    memory: Memory, clock: object,
) -> None:
    memory.retention("acme", "runs", "P1D")
    memory.retention("acme", "drafts", "P1D", on_expiry="keep_facts")
    saver = SgamSaver(memory, tenant="acme", retention="runs")
    graph = _graph(saver)
    live = {"configurable": {"thread_id": "live"}}
    graph.invoke({"topic": "q1", "draft": "", "published": False}, live)  # type: ignore[attr-defined]
    kept = {"configurable": {"thread_id": "kept"}, "metadata": {"retention": "drafts"}}
    graph.invoke({"topic": "q2", "draft": "", "published": False}, kept)  # type: ignore[attr-defined]
    clock.advance(2 * 86_400)  # type: ignore[attr-defined]
    expired = {"configurable": {"thread_id": "expired"}}
    graph.invoke({"topic": "old", "draft": "", "published": False}, expired)  # type: ignore[attr-defined]
    clock.advance(2 * 86_400)  # type: ignore[attr-defined]
    graph.invoke(Command(resume="yes"), live)  # type: ignore[attr-defined]
    outcome = saver.apply_retention()
    assert set(outcome["erased"]) == {"expired"}
    assert set(outcome["pruned"]) == {"live", "kept"}
    assert saver.get_tuple(expired) is None  # type: ignore[arg-type]
    assert graph.get_state(kept).next == ("approve",)  # type: ignore[attr-defined]
    done = graph.invoke(Command(resume="fine"), kept)  # type: ignore[attr-defined]
    assert done["published"] is True
    assert len(list(saver.list(live))) == 1  # type: ignore[arg-type]


def test_a_thread_names_its_subjects_under_any_spelling(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": f"Mira said {MARKER}"}
    saver.put(_config("about-mira", subjects=" MIRA "), checkpoint, {}, {})  # type: ignore[arg-type]
    memory.forget_subject("acme", "Mira")
    assert saver.get_tuple(_config("about-mira")) is None  # type: ignore[arg-type]


def test_purge_applies_checkpoint_retention_in_every_tenant_that_has_threads_due(
    memory: Memory, clock: object,
) -> None:
    """Nothing else of either tenant is due: the purge finds them by their threads alone,
    prunes the interrupted one (its class keeps what a resume needs) and erases the
    expired one, and a second purge finds nothing."""
    memory.retention("acme", "drafts", "P1D", on_expiry="keep_facts")
    memory.retention("beta", "runs", "P1D")
    acme = SgamSaver(memory, tenant="acme", retention="drafts")
    beta = SgamSaver(memory, tenant="beta", retention="runs")
    graph, beta_graph = _graph(acme), _graph(beta)
    live = {"configurable": {"thread_id": "live"}}
    graph.invoke({"topic": "q1", "draft": "", "published": False}, live)  # type: ignore[attr-defined]
    old = {"configurable": {"thread_id": "old"}}
    beta_graph.invoke({"topic": "q0", "draft": "", "published": False}, old)  # type: ignore[attr-defined]
    assert memory.purge().tenants == 0
    clock.advance(2 * 86_400)  # type: ignore[attr-defined]
    before = len(list(acme.list(live)))  # type: ignore[arg-type]
    result = memory.purge()
    assert (result.tenants, result.threads_erased, result.threads_pruned) == (2, 1, 1)
    assert before > 1 and len(list(acme.list(live))) == 1  # type: ignore[arg-type]
    assert beta.get_tuple(old) is None  # type: ignore[arg-type]
    assert [entry.action for entry in memory.audit("beta")][:1] == ["expire_thread"]
    again = memory.purge()
    assert (again.tenants, again.threads_erased, again.threads_pruned) == (0, 0, 0)
    assert graph.get_state(live).next == ("approve",)  # type: ignore[attr-defined]
    assert graph.invoke(Command(resume="ok"), live)["published"] is True  # type: ignore[attr-defined]


def _publishing_graph(memory: Memory, saver: SgamSaver, published: list[str]) -> object:
    """Draft, wait for approval, publish through the action ledger: the publish is an
    external call made once, recorded for the run's thread."""
    def draft(state: State) -> dict[str, str]:
        return {"draft": f"report on {state['topic']}"}

    def approve(state: State) -> dict[str, str]:
        return {"draft": f"{state['draft']} ({interrupt('approve?')})"}

    def publish(state: State) -> dict[str, bool]:
        memory.once("acme", f"publish:{state['topic']}", {"draft": state["draft"]},
                    lambda key: published.append(key) or "receipt-1")
        return {"published": True}

    builder = StateGraph(State)
    for name, node in (("draft", draft), ("approve", approve), ("publish", publish)):
        builder.add_node(name, node)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=saver)


def test_an_action_called_from_a_node_is_recorded_for_its_thread(memory: Memory) -> None:
    from sgam.langgraph.threads import show_thread

    published: list[str] = []
    saver = SgamSaver(memory, tenant="acme")
    graph = _publishing_graph(memory, saver, published)
    config = {"configurable": {"thread_id": "report-7"}}
    graph.invoke({"topic": "q3", "draft": "", "published": False}, config)  # type: ignore[attr-defined]
    assert show_thread(memory, "acme", "report-7").actions == []
    graph.invoke(Command(resume="yes"), config)  # type: ignore[attr-defined]
    memory.once("acme", "elsewhere", {}, lambda key: "not a run's")
    memory.once("acme", "by-hand", {}, lambda key: "given", thread_id="report-7")
    assert published == ["publish:q3"]
    (action,) = memory.actions("acme", thread_id="report-7")[:1]
    assert (action.key, action.status, action.thread_id, action.result) == ("publish:q3", "done", "report-7",
                                                                             "receipt-1")
    shown = show_thread(memory, "acme", "report-7").actions
    assert [(a.action_key, a.status) for a in shown] == [("publish:q3", "done"), ("by-hand", "done")]
    assert all(a.finished_at is not None and a.attempts == 1 for a in shown)
    assert memory.actions("beta", thread_id="report-7") == []
    assert [a.thread_id for a in memory.actions("acme")] == ["report-7", None, "report-7"]
    with pytest.raises(ValidationError):
        memory.actions("acme", thread_id="report-7", status="done")
