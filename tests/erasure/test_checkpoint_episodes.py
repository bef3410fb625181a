"""Erasing an episode reaches checkpoint threads whose state or pending writes hold its
text: each goes back to its last checkpoint before the text (a thread with none before
is erased whole), and ``residue`` finds nothing; so does a ``keep_facts`` expiry. A run
that read the text resumes from before it."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from sgam import Memory, NotFoundError
from sgam.langgraph import SgamSaver

from ..conftest import ManualClock

T1 = "2026-06-01T09:00:00Z"
SECRET_LINE = "Mira's locker code is qx-4417-vault."
TEXT = f"{SECRET_LINE}\nShe asked us to keep it safe."


def _put(saver: SgamSaver, thread: str, notes: str, parent: dict[str, Any] | None = None) -> dict[str, Any]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": notes}
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    if parent is not None:
        config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
    return saver.put(config, checkpoint, {"step": 0, "source": "loop"}, {})  # type: ignore[arg-type,return-value]


def _notes(saver: SgamSaver, thread: str) -> object:
    found = saver.get_tuple({"configurable": {"thread_id": thread}})
    return None if found is None else found.checkpoint["channel_values"]["notes"]


def _threads(memory: Memory) -> SgamSaver:
    saver = SgamSaver(memory, tenant="acme")
    first = _put(saver, "t-1", "a quiet start")
    saver.put_writes(first, [("notes", f"heard: {SECRET_LINE}")], "task-1")  # type: ignore[arg-type]
    second = _put(saver, "t-1", f"heard: {TEXT}", first)
    third = _put(saver, "t-1", f"heard: {TEXT}, and more", second)
    saver.put_writes(third, [("notes", "done")], "task-2")  # type: ignore[arg-type]
    _put(saver, "t-2", f"quoted: {SECRET_LINE}")
    _put(saver, "t-3", "nothing personal")
    return saver


def test_forgetting_an_episode_takes_threads_back_to_before_its_text(memory: Memory) -> None:
    memory.add_episode("acme", "e1", T1, TEXT)
    saver = _threads(memory)
    assert memory.residue("acme", "qx-4417-vault").found
    memory.forget_episode("acme", "e1")
    assert _notes(saver, "t-1") == "a quiet start"
    head = saver.get_tuple({"configurable": {"thread_id": "t-1"}})
    assert head is not None and head.pending_writes == []  # its task runs again on resume
    assert len(list(saver.list({"configurable": {"thread_id": "t-1"}}))) == 1
    with pytest.raises(NotFoundError):
        saver.thread("t-2")  # nothing before the text: erased whole
    assert _notes(saver, "t-3") == "nothing personal"
    memory.purge_residue()
    assert not memory.residue("acme", "qx-4417-vault").found, memory.residue("acme", "qx-4417-vault").places


def test_a_keep_facts_expiry_reaches_threads_holding_the_text(memory: Memory, clock: ManualClock) -> None:
    memory.retention("acme", "brief", "P1D", on_expiry="keep_facts")
    memory.add_episode("acme", "e1", T1, TEXT, retention="brief")
    saver = _threads(memory)
    clock.advance(2 * 86400)
    memory.purge("acme")
    assert _notes(saver, "t-1") == "a quiet start"
    assert _notes(saver, "t-3") == "nothing personal"
    memory.purge_residue()
    assert not memory.residue("acme", "qx-4417-vault").found, memory.residue("acme", "qx-4417-vault").places


class _State(TypedDict):
    topic: str
    draft: str
    published: bool


def _approval_graph(saver: SgamSaver) -> Any:
    def draft(state: _State) -> dict[str, str]:
        return {"draft": f"report on {state['topic']}"}

    def approve(state: _State) -> dict[str, str]:
        return {"draft": f"{state['draft']} ({interrupt({'draft': state['draft']})})"}

    def publish(state: _State) -> dict[str, bool]:
        return {"published": True}

    builder = StateGraph(_State)
    builder.add_node("draft", draft)
    builder.add_node("approve", approve)
    builder.add_node("publish", publish)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=saver)


def test_a_run_that_read_an_erased_episode_resumes_from_before_it(memory: Memory) -> None:
    """The approval came from an episode: erasing it takes the run back to waiting for
    approval, and a new answer carries it to the end."""
    saver = SgamSaver(memory, tenant="acme")
    graph = _approval_graph(saver)
    config = {"configurable": {"thread_id": "report-1"}}
    graph.invoke({"topic": "q3", "draft": "", "published": False}, config)
    memory.add_episode("acme", "e1", T1, TEXT)
    done = graph.invoke(Command(resume=TEXT), config)
    assert done["published"] is True and SECRET_LINE in done["draft"]
    memory.forget_episode("acme", "e1")
    memory.purge_residue()
    assert not memory.residue("acme", "qx-4417-vault").found, memory.residue("acme", "qx-4417-vault").places
    snapshot = graph.get_state(config)
    assert snapshot.next == ("approve",) and snapshot.values["draft"] == "report on q3"
    again = graph.invoke(Command(resume="approved by Ola"), config)
    assert again["published"] is True and again["draft"] == "report on q3 (approved by Ola)"
