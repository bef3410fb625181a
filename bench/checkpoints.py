"""Checkpoint benchmark: ``SgamSaver`` beside LangGraph's ``SqliteSaver`` and
``PostgresSaver``, in one run, on one machine.

Workload per saver: ``--threads`` threads of ``--steps`` chained checkpoints each (a
state of a few short messages and a counter, as a small chat graph keeps), each put
followed by the pending writes of one task; then ``get_tuple`` of random threads' latest
checkpoints; then a three-node graph (draft → review → publish) invoked ``--runs`` times,
each invocation a new thread, giving graph steps per second. The savers take turns at
each thread, probe and run (``measure``), so load that changes during the run is shared.
``SgamSaver`` runs with its tenancy (PostgreSQL: row-level security as the application
role) and its strict serializer on, and its threads in a retention class with a ttl.

``--flush off`` (PostgreSQL) stops commits from waiting for the WAL to reach the disk
(``synchronous_commit = off`` on the benchmark's own server): that wait is the same for
both savers and, on a machine whose disk others share, it is most of a put and most of
its noise, so this shows what each saver itself costs. The default measures what a
user sees.

    python bench/checkpoints.py --json
    python bench/checkpoints.py --backend postgres --flush off --json
    python bench/checkpoints.py --backend sqlite --threads 50 --steps 40
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict

from _stores import temporary_url
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.graph import END, START, StateGraph

from sgam import Memory
from sgam.langgraph import SgamSaver


class Run(TypedDict):
    topic: str
    draft: str
    published: bool


def _graph(saver: BaseCheckpointSaver[Any]) -> Any:
    builder = StateGraph(Run)
    builder.add_node("draft", lambda state: {"draft": f"report on {state['topic']}"})
    builder.add_node("review", lambda state: {"draft": state["draft"] + " (reviewed)"})
    builder.add_node("publish", lambda state: {"published": True})
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "review")
    builder.add_edge("review", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=saver)


def _quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_us": round(statistics.median(ordered) * 1e6, 1),
            "p99_us": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e6, 1)}


def _checkpoint(thread: int, step: int) -> Any:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {
        "messages": [f"message {step - k} of thread {thread}: the quarterly numbers look fine" for k in range(5)],
        "counter": step,
    }
    checkpoint["channel_versions"] = {"messages": step + 1, "counter": step + 1}
    return checkpoint


def _put_and_write(saver: BaseCheckpointSaver[Any], config: dict[str, Any], thread: int, step: int) -> dict[str, Any]:
    stored = saver.put(config, _checkpoint(thread, step), {"source": "loop", "step": step}, {})  # type: ignore[arg-type]
    saver.put_writes(stored, [("messages", f"reply {step}")], f"task-{step}")
    return {"configurable": dict(stored["configurable"])}


def measure(
    savers: dict[str, BaseCheckpointSaver[Any]], threads: int, steps: int, probes: int, runs: int,
) -> dict[str, dict[str, Any]]:
    """The same workload on every saver, interleaved: each thread's puts, each probe and
    each graph run go to every saver in turn (the order alternating), so a machine whose
    load changes during the run weighs on all of them alike."""
    prefix = f"bench-{random.randrange(1 << 30)}"
    names = list(savers)
    puts: dict[str, list[float]] = {name: [] for name in names}
    gets: dict[str, list[float]] = {name: [] for name in names}
    graph_time = dict.fromkeys(names, 0.0)

    def turns(i: int) -> list[str]:
        return names if i % 2 == 0 else names[::-1]

    for t in range(threads):
        for name in turns(t):
            config: dict[str, Any] = {"configurable": {"thread_id": f"{prefix}-{t}", "checkpoint_ns": ""}}
            for step in range(steps):
                start = time.perf_counter()
                config = _put_and_write(savers[name], config, t, step)
                puts[name].append(time.perf_counter() - start)
    rng = random.Random(5)
    for i in range(probes):
        probe = {"configurable": {"thread_id": f"{prefix}-{rng.randrange(threads)}", "checkpoint_ns": ""}}
        for name in turns(i):
            start = time.perf_counter()
            savers[name].get_tuple(probe)  # type: ignore[arg-type]
            gets[name].append(time.perf_counter() - start)
    graphs = {name: _graph(saver) for name, saver in savers.items()}
    for r in range(runs):
        for name in turns(r):
            start = time.perf_counter()
            graphs[name].invoke({"topic": f"t{r}", "draft": "", "published": False},
                                {"configurable": {"thread_id": f"{prefix}-run-{r}"}})
            graph_time[name] += time.perf_counter() - start
    return {name: {"put": _quantiles(puts[name]), "get_tuple": _quantiles(gets[name]),
                   "put_per_s": round(len(puts[name]) / sum(puts[name]), 1),
                   "graph_steps_per_s": round(runs * 3 / graph_time[name], 1)} for name in names}


@contextmanager
def _sgam(url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    with Memory(url) as memory:
        memory.retention("bench", "runs", "P30D")
        yield SgamSaver(memory, tenant="bench", retention="runs")


@contextmanager
def _langgraph_sqlite() -> Iterator[BaseCheckpointSaver[Any]]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with tempfile.TemporaryDirectory(prefix="lg-sqlite-") as folder:
        conn = sqlite3.connect(Path(folder) / "checkpoints.db", check_same_thread=False)
        try:
            saver = SqliteSaver(conn)
            saver.setup()
            yield saver
        finally:
            conn.close()


@contextmanager
def _langgraph_postgres(admin_url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(admin_url) as saver:
        saver.setup()
        yield saver


def _own_database(app_url: str, flush: bool = True) -> str:
    """A database of its own on the same server for LangGraph's saver (its tables would
    clash with sgam's ``checkpoints``), as the server's superuser; without ``flush``,
    the whole server's commits stop waiting for the disk."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    admin = make_conninfo(app_url, user="postgres", password="")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS langgraph_bench")
        conn.execute("CREATE DATABASE langgraph_bench")
        if not flush:
            conn.execute("ALTER SYSTEM SET synchronous_commit = off")
            conn.execute("SELECT pg_reload_conf()")
    return make_conninfo(admin, dbname="langgraph_bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--threads", type=int, default=30)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--probes", type=int, default=500)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--flush", choices=["on", "off"], default="on",
                        help="PostgreSQL: whether a commit waits for the WAL to reach the disk")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    sizes = (args.threads, args.steps, args.probes, args.runs)
    report: dict[str, Any] = {"workload": dict(zip(("threads", "steps", "probes", "runs"), sizes, strict=True))}
    report["workload"]["postgres_flush"] = args.flush
    if args.backend in ("sqlite", "both"):
        with temporary_url("sqlite", "checkpoints") as url, _sgam(url) as ours, _langgraph_sqlite() as theirs:
            figures = measure({"sgam": ours, "langgraph_sqlite_saver": theirs}, *sizes)
        report["sqlite"] = {**figures, "ratios": _ratios(figures["sgam"], figures["langgraph_sqlite_saver"])}
    if args.backend in ("postgres", "both"):
        with temporary_url("postgres", "checkpoints") as url, _sgam(url) as ours, \
                _langgraph_postgres(_own_database(url, flush=args.flush == "on")) as theirs:
            figures = measure({"sgam": ours, "langgraph_postgres_saver": theirs}, *sizes)
        report["postgres"] = {**figures, "ratios": _ratios(figures["sgam"], figures["langgraph_postgres_saver"])}
    print(json.dumps(report, indent=None if args.json else 2))


def _ratios(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, float]:
    """Throughput of sgam ÷ LangGraph's (above 1: sgam is faster)."""
    return {
        "put": round(theirs["put"]["p50_us"] / ours["put"]["p50_us"], 3),
        "get_tuple": round(theirs["get_tuple"]["p50_us"] / ours["get_tuple"]["p50_us"], 3),
        "graph_steps": round(ours["graph_steps_per_s"] / theirs["graph_steps_per_s"], 3),
    }


if __name__ == "__main__":
    main()
