"""A LangGraph ``DeltaChannel`` keeps its value in a checkpoint only every few steps; the
others are rebuilt from their ancestors' pending writes. Pruning and retention keep the
path a read rebuilds from: a pruned thread reads, time-travels and resumes as before."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

import ormsgpack
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from sgam import Memory
from sgam.langgraph import SgamSaver
from sgam.store._sql.checkpoint_delta import held, replayed

from ..conftest import Store

STEPS = 10
"""Past two snapshots (every fourth update), so the newest checkpoint is not one."""


def _append(log: list[str], batches: Sequence[list[str]]) -> list[str]:
    return [*log, *(line for batch in batches for line in batch)]


class Run(TypedDict):
    log: Annotated[list[str], DeltaChannel(_append, snapshot_frequency=4)]
    step: int
    approved: str


def _graph(saver: SgamSaver) -> Any:
    """Log a line per step; ask for approval after the last, then log the answer."""

    def work(state: Run) -> dict[str, object]:
        return {"log": [f"step {state['step']}"], "step": state["step"] + 1}

    def approve(state: Run) -> dict[str, object]:
        answer = interrupt({"lines": len(state["log"])})
        return {"log": [f"approved: {answer}"], "approved": str(answer)}

    builder = StateGraph(Run)
    builder.add_node("work", work)
    builder.add_node("approve", approve)
    builder.add_edge(START, "work")
    builder.add_conditional_edges("work", lambda state: "approve" if state["step"] >= STEPS else "work")
    builder.add_edge("approve", END)
    return builder.compile(checkpointer=saver)


def _log(steps: int) -> list[str]:
    return [f"step {n}" for n in range(steps)]


def _interrupted(saver: SgamSaver) -> tuple[Any, dict[str, Any]]:
    graph = _graph(saver)
    config = {"configurable": {"thread_id": f"delta-{uuid.uuid4()}"}}
    first = graph.invoke({"log": [], "step": 0, "approved": ""}, config)
    assert "__interrupt__" in first and first["log"] == _log(STEPS)
    return graph, config


def _snapshot_of_newest_is_not_stored(saver: SgamSaver, config: dict[str, Any]) -> None:
    """The graph really is one whose newest checkpoint leaves ``log`` to its ancestors."""
    newest = saver.get_tuple(config)  # type: ignore[arg-type]
    assert newest is not None and "log" not in newest.checkpoint["channel_values"]
    assert "log" in newest.metadata.get("counters_since_delta_snapshot", {})


def test_a_pruned_thread_rebuilds_its_delta_channel_and_resumes(store: Store) -> None:
    with SgamSaver.from_url(store.url, tenant="acme") as saver:
        graph, config = _interrupted(saver)
        _snapshot_of_newest_is_not_stored(saver, config)
        history = list(saver.list(config))  # type: ignore[arg-type]
        saver.prune([config["configurable"]["thread_id"]])
        kept = list(saver.list(config))  # type: ignore[arg-type]
        assert 1 < len(kept) < len(history)
        assert "log" in kept[-1].checkpoint["channel_values"]  # the oldest kept holds the value
        assert kept[-1].parent_config is None
        state = graph.get_state(config)
        assert state.values["log"] == _log(STEPS) and state.next == ("approve",)
        older = graph.get_state(kept[1].config)  # time travel within what was kept
        assert older.values["log"] == _log(older.values["step"])
        done = graph.invoke(Command(resume="yes"), config)
        assert done["log"] == [*_log(STEPS), "approved: yes"] and done["approved"] == "yes"
        saver.prune([config["configurable"]["thread_id"]])  # and again, after the run ended
        assert graph.get_state(config).values["log"] == [*_log(STEPS), "approved: yes"]


def test_retention_keeps_what_the_delta_channel_is_rebuilt_from(memory: Memory, clock: Any) -> None:
    memory.retention("acme", "runs", "P1D", on_expiry="keep_facts")
    saver = SgamSaver(memory, tenant="acme", retention="runs")
    graph, config = _interrupted(saver)
    before = len(list(saver.list(config)))  # type: ignore[arg-type]
    clock.advance(2 * 86_400)
    assert saver.apply_retention()["pruned"] == [config["configurable"]["thread_id"]]
    assert 1 < len(list(saver.list(config))) < before  # type: ignore[arg-type]
    assert graph.get_state(config).values["log"] == _log(STEPS)
    assert graph.invoke(Command(resume="later"), config)["log"][-1] == "approved: later"


def test_a_thread_without_delta_channels_still_prunes_to_one_checkpoint(memory: Memory) -> None:
    class Plain(TypedDict):
        step: int

    builder = StateGraph(Plain)
    builder.add_node("work", lambda state: {"step": state["step"] + 1})
    builder.add_edge(START, "work")
    builder.add_conditional_edges("work", lambda state: END if state["step"] >= 5 else "work")
    saver = SgamSaver(memory, tenant="acme")
    graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "plain"}}
    graph.invoke({"step": 0}, config)
    saver.prune(["plain"])
    assert len(list(saver.list(config))) == 1  # type: ignore[arg-type]
    assert graph.get_state(config).values == {"step": 5}


_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=40) | st.binary(max_size=300)
    | st.builds(ormsgpack.Ext, st.integers(0, 127), st.binary(max_size=40)),  # how LangGraph stores its types
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(values=st.dictionaries(st.text(max_size=20), _plain, max_size=8),
       versions=st.dictionaries(st.text(max_size=20), st.integers(0, 2**40), max_size=8),
       counted=st.dictionaries(st.text(max_size=20), st.tuples(st.integers(0, 99), st.integers(0, 9999)), max_size=6),
       extra=st.dictionaries(st.text(max_size=20), _plain, max_size=4))
def test_the_key_reader_agrees_with_msgpack(
    values: dict[str, Any], versions: dict[str, int], counted: dict[str, tuple[int, int]], extra: dict[str, Any],
) -> None:
    body = ormsgpack.packb({**extra, "channel_values": values, "channel_versions": versions})
    metadata = ormsgpack.packb({**extra, "counters_since_delta_snapshot": counted})
    assert held("msgpack", body) == set(values)
    expected = (set(counted) & set(versions)) - set(values) if counted else set()
    assert replayed("msgpack", body, "msgpack", metadata) == expected
    for cut in (1, len(body) // 2, len(body) - 1):  # damaged bytes: unknown, never an exception
        assert replayed("msgpack", body[:cut], "msgpack", metadata) in (None, expected)
    assert replayed("json", body, "msgpack", metadata) is None  # another serializer's: unknown
