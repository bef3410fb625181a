"""A graph run as its own process by test_checkpoint_durability.py: draft → publish (an
external call made once through the action ledger) → notify → done. On its first run
``notify`` kills the process, in its third super-step; run again, the graph resumes
from what its durability mode had saved."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from sgam import Memory
from sgam.langgraph import SgamSaver


class Run(TypedDict):
    topic: str
    log: list[str]


def main(url: str, durability: str, folder: Path) -> None:
    nodes, calls, killed = folder / "nodes.log", folder / "calls.log", folder / "killed"

    def ran(name: str) -> None:
        with nodes.open("a") as out:
            out.write(name + "\n")

    with Memory(url) as memory:
        def draft(state: Run) -> dict[str, list[str]]:
            ran("draft")
            return {"log": [*state["log"], "drafted"]}

        def publish(state: Run) -> dict[str, list[str]]:
            ran("publish")

            def call(key: str) -> str:
                with calls.open("a") as out:
                    out.write(key + "\n")
                return "published"

            receipt = memory.once("acme", "publish:report-1", {"topic": state["topic"]}, call)
            return {"log": [*state["log"], receipt]}

        def notify(state: Run) -> dict[str, list[str]]:
            ran("notify")
            if not killed.exists():
                killed.touch()
                os._exit(9)
            return {"log": [*state["log"], "notified"]}

        def done(state: Run) -> dict[str, list[str]]:
            ran("done")
            return {"log": [*state["log"], "done"]}

        builder = StateGraph(Run)
        for name, node in (("draft", draft), ("publish", publish), ("notify", notify), ("done", done)):
            builder.add_node(name, node)
        builder.add_edge(START, "draft")
        builder.add_edge("draft", "publish")
        builder.add_edge("publish", "notify")
        builder.add_edge("notify", "done")
        builder.add_edge("done", END)
        graph = builder.compile(checkpointer=SgamSaver(memory, tenant="acme"))
        config = {"configurable": {"thread_id": "report-1"}}
        start = None if graph.get_state(config).values else {"topic": "q3", "log": []}
        final = graph.invoke(start, config, durability=durability)
        print(",".join(final["log"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
