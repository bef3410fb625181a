"""What lifecycle state costs a read: the deadline probe and the consent lookup that every
read pays, with and without retention classes, deadlines and consent statements.

    .venv/bin/python bench/lifecycle_reads.py [--subjects 2000] [--reads 3000] [--seed 5]
                                              [--backend sqlite|postgres] [--json]

Two tenants of one store hold the same data: episodes, one fact per subject sourced from
them, and documents. ``plain`` has no lifecycle state. ``lifecycle`` has what a busy
tenant has: four retention classes with a ttl (every episode and document in one of
them), an ``expires_at`` on every write, and consent statements for a quarter of the
subjects (a tenth of those revoked for a purpose). No deadline is reached during the
run, so every read pays the probe and finds nothing due: the steady-state cost.

Timed reads, each alone with ``perf_counter_ns`` on random keys: ``Memory.get``,
``Memory.episode``, ``documents.read``; and the two parts on their own inside one read
scope: ``lifecycle_due`` (the probe) and ``consents(subject)``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from _stores import temporary_url

from sgam import Memory

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CLASSES = ("chat", "tool", "notes", "summary")
DOCUMENTS = 100


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def fill(memory: Memory, tenant: str, subjects: int, lifecycle: bool, rng: random.Random) -> None:
    """The same episodes, facts and documents; lifecycle state only in ``lifecycle``."""
    if lifecycle:
        for name in CLASSES:
            memory.retention(tenant, name, "P3650D")
    expires = iso(START + timedelta(days=365)) if lifecycle else None
    memory.add_episodes(tenant, [
        {"id": f"e{i}", "at": iso(START - timedelta(minutes=subjects - i)), "speaker": f"person{i}",
         "text": f"person{i} says the badge number is {1000 + i}.",
         "retention": CLASSES[i % len(CLASSES)] if lifecycle else "default"}
        for i in range(subjects)
    ])
    memory.write_many(tenant, [
        {"subject": f"person{i}", "attribute": "badge", "value": 1000 + i, "valid_from": iso(START - timedelta(days=1)),
         "source": f"e{i}", "expires_at": expires}
        for i in range(subjects)
    ])
    for i in range(DOCUMENTS):
        memory.documents.create(tenant, f"/memories/team/person{i}.md", f"# person{i}\nbadge {1000 + i}\n" * 5,
                                retention=CLASSES[i % len(CLASSES)] if lifecycle else "default")
    if lifecycle:
        for i in rng.sample(range(subjects), subjects // 4):
            purpose = "slides" if i % 10 == 0 else None
            memory.consent(tenant, f"person{i}", purpose is None, purpose=purpose)


def timed(reads: int, op: Callable[[int], Any], rng: random.Random, span: int) -> list[float]:
    keys = [rng.randrange(span) for _ in range(reads)]
    for key in keys[:50]:
        op(key)  # warm caches and prepared statements
    out: list[float] = []
    for key in keys:
        began = time.perf_counter_ns()
        op(key)
        out.append((time.perf_counter_ns() - began) / 1000)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(memory: Memory, tenant: str, subjects: int, reads: int, seed: int) -> dict[str, dict[str, float]]:
    backend, now = memory.backend, memory.ledger.now()

    def probe(_: int) -> None:
        with backend.read(tenant) as reader:
            reader.lifecycle_due(now)

    def consents(i: int) -> None:
        with backend.read(tenant) as reader:
            reader.consents(f"person{i}")

    def scope(_: int) -> None:
        with backend.read(tenant):
            pass

    ops: dict[str, tuple[Callable[[int], Any], int]] = {
        "get": (lambda i: memory.get(tenant, f"person{i}", "badge"), subjects),
        "episode": (lambda i: memory.episode(tenant, f"e{i}"), subjects),
        "document_read": (lambda i: memory.documents.get(tenant, f"/memories/team/person{i}.md"), DOCUMENTS),
        "read_scope": (scope, subjects),
        "probe": (probe, subjects),
        "consents": (consents, subjects),
    }
    figures: dict[str, dict[str, float]] = {}
    for name, (op, span) in ops.items():
        values = timed(reads, op, random.Random(seed), span)
        figures[name] = {"p50_us": round(percentile(values, 0.5), 1), "p99_us": round(percentile(values, 0.99), 1),
                         "mean_us": round(statistics.fmean(values), 1)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=2000)
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    clock = Clock()
    with temporary_url(args.backend, "lifecycle-reads") as url, Memory(url, clock=clock) as memory:
        for tenant, lifecycle in (("plain", False), ("lifecycle", True)):
            fill(memory, tenant, args.subjects, lifecycle, random.Random(args.seed))
        clock.now = START + timedelta(days=1)
        results = {tenant: measure(memory, tenant, args.subjects, args.reads, args.seed)
                   for tenant in ("plain", "lifecycle")}
    report = {
        "backend": args.backend, "subjects": args.subjects, "reads": args.reads, "documents": DOCUMENTS,
        "results": results,
        "overhead_p50_us": {op: round(results["lifecycle"][op]["p50_us"] - results["plain"][op]["p50_us"], 1)
                            for op in results["plain"]},
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                    "time": datetime.now(UTC).isoformat(timespec="seconds")},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.backend}: {args.subjects} subjects, {DOCUMENTS} documents, {args.reads} timed reads per row")
    print(f"{'read':<15}{'plain p50':>11}{'p99':>9}{'lifecycle p50':>15}{'p99':>9}{'+p50':>8}  (µs)")
    for op in results["plain"]:
        plain, life = results["plain"][op], results["lifecycle"][op]
        print(f"{op:<15}{plain['p50_us']:>11}{plain['p99_us']:>9}{life['p50_us']:>15}{life['p99_us']:>9}"
              f"{report['overhead_p50_us'][op]:>8}")


if __name__ == "__main__":
    main()
