"""Schema migration benchmark: a retype of an attribute with N versions, beside reads of
an untouched attribute in the same run.

Workload: N/10 subjects, each with ten versions of ``budget`` (strings holding numbers,
every 50th one a word that no conversion turns into an integer) and one ``city``. The
store is bulk-loaded (``write_many``); then ``retype budget -> integer`` with
``quarantine`` runs as one recorded step and is timed (rows per second of the step,
peak RSS of the process). Reads are timed one by one on random subjects: a current read
of ``budget`` after the step, a read at a ``known_at`` before the step (the old shape),
and a current read of the untouched ``city``.

    python bench/migrations.py --facts 100000
    python bench/migrations.py --facts 100000,1000000 --json
    python bench/migrations.py --facts 100000 --db postgresql://...   # a fresh database it may fill
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sgam import Memory

TENANT = "bench"
VERSIONS = 10
BATCH = 10_000
READS = 2_000
T0 = datetime(2020, 1, 1, tzinfo=UTC)


def _fill(memory: Memory, facts: int) -> int:
    memory.add_episode(TENANT, "e0", T0, "budgets")
    memory.declare(TENANT, "budget", "string")
    subjects = max(1, facts // VERSIONS)
    batch: list[dict[str, Any]] = []
    for version in range(VERSIONS):
        for subject in range(subjects):
            number = version * subjects + subject
            value = "lots" if number % 50 == 0 else str(number)
            batch.append({"subject": f"p{subject}", "attribute": "budget", "value": value,
                          "valid_from": T0 + timedelta(days=30 * version), "source": "e0"})
            if len(batch) >= BATCH:
                memory.write_many(TENANT, batch)
                batch.clear()
    batch += [{"subject": f"p{s}", "attribute": "city", "value": "Oslo", "valid_from": T0, "source": "e0"}
              for s in range(subjects)]
    for start in range(0, len(batch), BATCH):
        memory.write_many(TENANT, batch[start:start + BATCH])
    return subjects


def _timed(call: Callable[[], object], reads: int) -> dict[str, float]:
    samples = []
    for _ in range(reads):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    samples.sort()
    return {"p50_us": round(statistics.median(samples), 1), "p99_us": round(samples[int(len(samples) * 0.99)], 1)}


def run(url: str, facts: int) -> dict[str, Any]:
    with Memory(url) as memory:
        subjects = _fill(memory, facts)
        rng = random.Random(3)
        before = datetime.now(UTC)
        time.sleep(0.01)
        started = time.perf_counter()
        memory.retype(TENANT, "budget", "integer", quarantine=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        def pick() -> str:
            return f"p{rng.randrange(subjects)}"

        result = {
            "facts": facts, "retype_seconds": round(seconds, 2), "retype_rows_per_s": round(facts / seconds),
            "peak_rss_mb": round(peak, 1), "quarantined": len(memory.quarantined(TENANT, "budget")),
            "read_retyped": _timed(lambda: memory.get(TENANT, pick(), "budget"), READS),
            "read_before_step": _timed(lambda: memory.get(TENANT, pick(), "budget", known_at=before), READS),
            "read_untouched": _timed(lambda: memory.get(TENANT, pick(), "city"), READS),
        }
        result["retyped_vs_untouched"] = round(result["read_retyped"]["p50_us"] / result["read_untouched"]["p50_us"], 2)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", default="10000,100000", help="comma-separated sizes")
    parser.add_argument("--db", help="a PostgreSQL URL of a fresh database (default: a temporary SQLite file)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.facts.split(",")]
    runs = []
    for size in sizes:
        if args.db:
            runs.append(run(args.db, size))
            continue
        with tempfile.TemporaryDirectory() as folder:
            runs.append(run(f"sqlite:///{Path(folder) / 'bench.db'}", size))
    if args.json:
        print(json.dumps({"sizes": runs}, indent=2))
        return
    for found in runs:
        rate = f"{found['retype_rows_per_s']:,} rows/s"
        print(f"{found['facts']:>9,} facts: retype {found['retype_seconds']} s ({rate}), "
              f"peak RSS {found['peak_rss_mb']} MB, {found['quarantined']} set aside; read p50 retyped "
              f"{found['read_retyped']['p50_us']} us, before the step {found['read_before_step']['p50_us']} us, "
              f"untouched {found['read_untouched']['p50_us']} us ({found['retyped_vs_untouched']}x)")


if __name__ == "__main__":
    main()
