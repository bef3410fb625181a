"""A real LangGraph ``StateGraph`` compiled with ``store=SgamStore(...)``: a node reads
and writes long-term memory through ``runtime.store``, and the ledger records which
thread and run wrote each version."""

from __future__ import annotations

import asyncio
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from sgam import Memory
from sgam.langgraph import SgamStore


class State(TypedDict):
    user: str
    fact: str
    known: list[str]


def remember(state: State, runtime: Runtime[None]) -> dict[str, list[str]]:
    assert runtime.store is not None
    namespace = ("memories", state["user"])
    runtime.store.put(namespace, state["fact"].split()[0], {"text": state["fact"]})
    return {"known": sorted(item.value["text"] for item in runtime.store.search(namespace, limit=100))}


def _graph(store: SgamStore) -> object:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    return builder.compile(store=store, checkpointer=InMemorySaver())


def test_nodes_use_the_store_and_runs_are_recorded(memory: Memory, clock: object) -> None:
    store = SgamStore(memory, tenant="acme")
    graph = _graph(store)
    first = graph.invoke(  # type: ignore[attr-defined]
        {"user": "u1", "fact": "coffee black no sugar", "known": []},
        {"configurable": {"thread_id": "thread-1"}, "run_id": "6f1c0f5e-0000-4000-8000-000000000001"},
    )
    assert first["known"] == ["coffee black no sugar"]
    clock.advance(5)  # type: ignore[attr-defined]
    second = graph.invoke(  # type: ignore[attr-defined]
        {"user": "u1", "fact": "coffee with oat milk", "known": []}, {"configurable": {"thread_id": "thread-2"}},
    )
    assert second["known"] == ["coffee with oat milk"]
    history = store.history(("memories", "u1"), "coffee")
    assert [v.value["text"] for v in history] == ["coffee black no sugar", "coffee with oat milk"]
    assert [v.thread_id for v in history] == ["thread-1", "thread-2"]
    assert history[0].run_id == "6f1c0f5e-0000-4000-8000-000000000001"
    assert store.get(("memories", "u1"), "coffee", at=history[0].valid_from).value["text"] == (  # type: ignore[union-attr]
        "coffee black no sugar")


def test_async_graph(memory: Memory) -> None:
    store = SgamStore(memory, tenant="acme")
    graph = _graph(store)

    async def run() -> dict[str, list[str]]:
        result = await graph.ainvoke(  # type: ignore[attr-defined]
            {"user": "u2", "fact": "tea green", "known": []}, {"configurable": {"thread_id": "t-async"}})
        return result  # type: ignore[no-any-return]

    assert asyncio.run(run())["known"] == ["tea green"]
    assert [v.thread_id for v in store.history(("memories", "u2"), "tea")] == ["t-async"]
