"""LangGraph store benchmark: ``SgamStore`` against LangGraph's ``InMemoryStore`` (and
its ``SqliteStore`` when ``langgraph-checkpoint-sqlite`` is installed).

Workload: N items in N/100 namespaces ``("users", "u<i>")``, each value
``{"n": i, "tag": ..., "text": ...}``, put in batches of 100; then one-by-one puts that
overwrite existing items (each a versioned ledger write with its provenance episode),
gets of random items, searches of one namespace (no filter, then ``{"tag": "a"}``),
keyword queries over everything, and ``list_namespaces``. Rates are per second.

    python bench/langgraph_store.py --items 10000
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from sgam import Memory
from sgam.langgraph import SgamStore

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()


def _value(i: int) -> dict[str, Any]:
    return {"n": i, "tag": "ab"[i % 2], "text": " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7))}


def _rate(count: int, work: Callable[[], None]) -> float:
    start = time.perf_counter()
    work()
    return count / (time.perf_counter() - start)


def run(store: BaseStore, items: int, probes: int) -> dict[str, float]:
    spaces = max(1, items // 100)
    rng = random.Random(7)
    ops = [PutOp(("users", f"u{i % spaces}"), f"k{i}", _value(i)) for i in range(items)]
    figures: dict[str, float] = {}
    figures["batch put"] = _rate(items, lambda: [store.batch(ops[i:i + 100]) for i in range(0, items, 100)])
    keys = [rng.randrange(items) for _ in range(probes)]
    figures["single put"] = _rate(probes, lambda: [
        store.put(("users", f"u{k % spaces}"), f"k{k}", _value(k + 1)) for k in keys])
    figures["get"] = _rate(probes, lambda: [store.get(("users", f"u{k % spaces}"), f"k{k}") for k in keys])
    figures["search ns"] = _rate(probes, lambda: [store.search(("users", f"u{k % spaces}"), limit=10) for k in keys])
    figures["search filter"] = _rate(probes, lambda: [
        store.search(("users", f"u{k % spaces}"), filter={"tag": "a"}, limit=10) for k in keys])
    few = max(1, probes // 10)
    figures["query all"] = _rate(few, lambda: [store.search(("users",), query="charlie golf", limit=10)
                                               for _ in range(few)])
    figures["list ns"] = _rate(few, lambda: [store.list_namespaces(prefix=("users",), limit=100) for _ in range(few)])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--probes", type=int, default=500)
    parser.add_argument("--db", default=None, help="sgam URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
        with Memory(url) as memory:
            results[f"SgamStore ({url.split(':')[0]})"] = run(
                SgamStore(memory, tenant=f"bench{int(time.time())}"), args.items, args.probes)
        results["InMemoryStore"] = run(InMemoryStore(), args.items, args.probes)
        try:
            from langgraph.store.sqlite import SqliteStore
        except ImportError:
            pass
        else:
            with SqliteStore.from_conn_string(str(Path(tmp) / "lg.db")) as lg:
                lg.setup()
                results["langgraph SqliteStore"] = run(lg, args.items, args.probes)
    names = list(next(iter(results.values())))
    print(f"{args.items} items, {args.probes} probes; operations per second")
    print(f"{'store':<26}" + "".join(f"{name:>15}" for name in names))
    for store, figures in results.items():
        print(f"{store:<26}" + "".join(f"{figures[name]:>15,.0f}" for name in names))


if __name__ == "__main__":
    main()
