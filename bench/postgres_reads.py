"""PostgreSQL point reads: latency of ``Memory.get`` (not a test).

    python bench/postgres_reads.py [--facts 20000] [--reads 3000] [--db ADMIN_URL] [--json]

Loads ``--facts`` facts (ten attributes per subject, one version each) as the
application role under row-level security, in a fresh ``sgam_bench`` database set up as
``postgres_ledger.py`` does, then times ``Memory.get`` of random keys: current, at a past
valid time and with an explicit transaction time. Each kind runs in rounds of 100 reads
that alternate with the same reads sent one statement at a time (the read's statements
not sent ahead with its deadline probe, as before ``Reader.prefetch``), so both see the
same load; p50/p99 in microseconds for both and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from postgres_ledger import prepare, start_server

from sgam import Memory
from sgam.store.postgres.backend import PostgresReader

TENANT = "acme"
ATTRIBUTES = ("home_city", "employer", "favourite_food", "pet_name", "job_title", "birthday", "partner", "hobby",
              "car", "phone")
ROUND = 100


@contextmanager
def one_statement_at_a_time() -> Iterator[None]:
    """Reads as they were before a read's statements travelled with its deadline probe."""
    sent_ahead = PostgresReader.prefetch
    PostgresReader.prefetch = lambda self, calls: None  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        PostgresReader.prefetch = sent_ahead  # type: ignore[method-assign]


def load(memory: Memory, facts: int) -> list[tuple[str, str]]:
    memory.add_episode(TENANT, "e1", "2024-01-01T00:00:00Z", "the facts of the benchmark")
    keys = [(f"user_{i // len(ATTRIBUTES)}", ATTRIBUTES[i % len(ATTRIBUTES)]) for i in range(facts)]
    for start in range(0, facts, 1000):
        memory.write_many(TENANT, [{"subject": s, "attribute": a, "value": f"v{i}", "source": "e1",
                                    "valid_from": "2024-01-01T00:00:00Z"}
                                   for i, (s, a) in enumerate(keys[start:start + 1000], start)])
    return keys


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 1), "p99": round(ordered[int(0.99 * (len(ordered) - 1))], 1)}


def measure(memory: Memory, keys: list[tuple[str, str]], reads: int) -> dict[str, Any]:
    rng = random.Random(7)
    wanted = [rng.choice(keys) for _ in range(reads)]
    kinds: dict[str, Callable[[str, str], object]] = {
        "current": lambda s, a: memory.get(TENANT, s, a),
        "at": lambda s, a: memory.get(TENANT, s, a, at="2024-06-01T00:00:00Z"),
        "known_at": lambda s, a: memory.get(TENANT, s, a, at="2024-06-01T00:00:00Z",
                                            known_at=datetime.now(UTC)),
    }
    figures: dict[str, Any] = {}
    for kind, read in kinds.items():
        for s, a in wanted[:ROUND]:
            assert read(s, a) is not None  # warm: prepared statements, pool
        ahead: list[float] = []
        apart: list[float] = []
        for start in range(0, reads, ROUND):
            for times, scope in ((ahead, None), (apart, one_statement_at_a_time)):
                with scope() if scope else _nothing():
                    for s, a in wanted[start:start + ROUND]:
                        t0 = time.perf_counter_ns()
                        read(s, a)
                        times.append((time.perf_counter_ns() - t0) / 1000)
        figures[kind] = {"sent_ahead_us": percentiles(ahead), "one_at_a_time_us": percentiles(apart),
                         "p50_ratio": round(statistics.median(ahead) / statistics.median(apart), 3)}
    return figures


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--reads", type=int, default=3_000)
    parser.add_argument("--db", help="admin URL of a PostgreSQL server (default: embedded)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    _, app = prepare(args.db or start_server())
    with Memory(app) as memory:
        figures = measure(memory, load(memory, args.facts), args.reads)
    machine = {"when": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "cpus": os.cpu_count(),
               "load_average_start": round(load_at_start, 2), "load_average_end": round(os.getloadavg()[0], 2)}
    if args.json:
        print(json.dumps({"facts": args.facts, "reads": args.reads, "figures": figures, "machine": machine}))
        return
    for kind, f in figures.items():
        print(f"get {kind:<9} p50 {f['sent_ahead_us']['p50']:>8} us  p99 {f['sent_ahead_us']['p99']:>8} us   "
              f"one statement at a time: p50 {f['one_at_a_time_us']['p50']:>8} us  p99 "
              f"{f['one_at_a_time_us']['p99']:>8} us   ratio {f['p50_ratio']}")
    print(f"{machine['when']}, {machine['cpus']} CPUs, load average {machine['load_average_start']} at start, "
          f"{machine['load_average_end']} at end")


if __name__ == "__main__":
    main()
