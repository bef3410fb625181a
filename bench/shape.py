"""Sets and relations benchmark: member reads, ``linked``, ``reachable`` and set writes
beside a plain current-value read in the same run, at growing ledger sizes.

Workload: N facts in all. A quarter are plain one-valued facts (``city`` of N/4
subjects); the rest are members of sets: every company has SUPPLIERS members of its
``supplier`` set (a relation, value type ``subject``) naming other companies, so the
tenant holds N*3/4 relation members. Everything is bulk-loaded (``write_many``), then
each read is timed one by one on random keys: a plain ``get``, ``members`` of a set,
``linked`` (who names a company), ``reachable`` at depth 2 and 3 (fan-out 1000), and a
one-member write to a set (one transaction each). The plain read and the member read are
timed in turn, call by call, so that both see the same load (the ratio is what the
target names; on a shared machine two runs one after the other drift apart).

    python bench/shape.py --facts 100000
    python bench/shape.py --facts 100000,1000000 --json
    python bench/shape.py --facts 100000 --backend postgres        # an embedded server, deleted after
    python bench/shape.py --facts 100000 --db postgresql://...     # a fresh database it may fill
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from _stores import temporary_url

from sgam import Memory

TENANT = "bench"
SUPPLIERS = 5
BATCH = 10_000
READS = 2_000
T0 = datetime(2020, 1, 1, tzinfo=UTC)


def _fill(memory: Memory, facts: int) -> int:
    """Load the workload; the number of companies."""
    memory.add_episode(TENANT, "e0", T0, "the supply chain")
    memory.declare(TENANT, "supplier", "subject", cardinality="many")
    companies = max(2, facts * 3 // 4 // SUPPLIERS)
    rng = random.Random(7)
    batch: list[dict[str, Any]] = []

    def put(subject: str, attribute: str, value: Any) -> None:
        batch.append({"subject": subject, "attribute": attribute, "value": value, "valid_from": T0,
                      "source": "e0"})
        if len(batch) >= BATCH:
            memory.write_many(TENANT, batch)
            batch.clear()

    for company in range(companies):
        for seller in rng.sample(range(companies), min(SUPPLIERS, companies - 1)):
            put(f"c{company}", "supplier", f"c{seller}")
    for person in range(facts - companies * SUPPLIERS):
        put(f"p{person}", "city", f"town{person % 97}")
    if batch:
        memory.write_many(TENANT, batch)
    return companies


def _timed(call: Callable[[int], object], reads: int) -> dict[str, float]:
    samples = []
    for i in range(reads):
        start = time.perf_counter()
        call(i)
        samples.append((time.perf_counter() - start) * 1000)
    return _summary(samples)


def _in_turn(first: Callable[[int], object], second: Callable[[int], object],
             reads: int) -> tuple[dict[str, float], dict[str, float]]:
    """Two reads timed alternately, call by call."""
    samples: tuple[list[float], list[float]] = ([], [])
    for i in range(reads):
        for call, into in ((first, samples[0]), (second, samples[1])):
            start = time.perf_counter()
            call(i)
            into.append((time.perf_counter() - start) * 1000)
    return _summary(samples[0]), _summary(samples[1])


def _summary(samples: list[float]) -> dict[str, float]:
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 4), "p99_ms": round(samples[int(len(samples) * 0.99)], 4)}


def run(url: str, facts: int, reads: int) -> dict[str, Any]:
    with Memory(url) as memory:
        started = time.perf_counter()
        companies = _fill(memory, facts)
        loaded = time.perf_counter() - started
        people = max(1, facts - companies * SUPPLIERS)
        rng = random.Random(11)
        pick = [rng.randrange(companies) for _ in range(reads)]
        plain, members = _in_turn(lambda i: memory.get(TENANT, f"p{pick[i] % people}", "city"),
                                  lambda i: memory.members(TENANT, f"c{pick[i]}", "supplier"), reads)
        result = {
            "facts": facts, "load_s": round(loaded, 2), "plain_get": plain, "members": members,
            "linked": _timed(lambda i: memory.linked(TENANT, "supplier", f"c{pick[i]}"), reads),
            "reachable_2": _timed(lambda i: memory.reachable(TENANT, f"c{pick[i]}", ["supplier"], depth=2),
                                  reads // 4),
            "reachable_3": _timed(lambda i: memory.reachable(TENANT, f"c{pick[i]}", ["supplier"], depth=3),
                                  reads // 10),
            "set_write": _timed(lambda i: memory.write(TENANT, f"c{pick[i]}", "supplier", f"new{i}",
                                                       "2021-01-01T00:00:00Z", "e0"), reads // 4),
        }
        result["members_vs_plain_p50"] = round(result["members"]["p50_ms"] / result["plain_get"]["p50_ms"], 2)
        result["load_average"] = [round(figure, 2) for figure in os.getloadavg()]
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", default="100000", help="comma-separated sizes")
    parser.add_argument("--reads", type=int, default=READS)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: a fresh store per size)")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite",
                        help="the fresh store: a SQLite file, or an embedded PostgreSQL server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.facts.split(",")):
        if args.db:
            results.append(run(args.db, size, args.reads))
            continue
        with temporary_url(args.backend, "shape") as url:
            results.append(run(url, size, args.reads))
    if len(results) > 1:
        first, last = results[0], results[-1]
        growth = {name: round(last[name]["p50_ms"] / first[name]["p50_ms"], 2)
                  for name in ("plain_get", "members", "linked", "reachable_2", "reachable_3", "set_write")}
        results.append({"growth_p50": growth})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for row in results:
        print(row)


if __name__ == "__main__":
    main()
