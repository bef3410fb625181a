"""Schema migration benchmark: a retype of an attribute with N versions, recorded at once
and converted by a backfill in batches, beside reads of an untouched attribute in the
same run.

Workload: N/10 subjects, each with ten versions of ``budget`` (strings holding numbers,
every 50th one a word that no conversion turns into an integer) and one ``city``. The
store is bulk-loaded (``write_many``); then ``retype budget -> integer`` with
``quarantine`` is recorded (``backfill=True, wait=False``: timed alone) and its
backfill runs in batches (the first also screens the attribute's values: timed too).
It is interrupted halfway (its progress callback raises after half the batches, as
Ctrl-C would between two batches), and while it stands there reads are timed on random
subjects, in turn (one of each kind per round, so the machine's load falls on all
alike): a current read of ``budget`` (half the subjects not converted yet: converted on
the fly), the same on unconverted subjects only, the same on converted ones, a read at
a ``known_at`` before the step, and a current read of the untouched ``city``.
Then the backfill is resumed, with reads timed on a second thread (its own ``Memory``, as
a server beside ``sgam schema backfill``) while it runs; the
batches done before and after show that nothing finished was done again. Peak RSS is
the process's high-water mark (``VmHWM``) after the fill and at the end.

    python bench/migrations.py --facts 100000
    python bench/migrations.py --facts 1000000 --json
    python bench/migrations.py --facts 100000 --backend postgres       # an embedded server, deleted after
    python bench/migrations.py --facts 100000 --db postgresql://...   # a fresh database it may fill
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _stores import temporary_url
from _timing import timed, timed_in_turn

from sgam import Memory
from sgam._core.model import Backfill

TENANT = "bench"
VERSIONS = 10
BATCH = 10_000
READS = 2_000
T0 = datetime(2020, 1, 1, tzinfo=UTC)


class Interrupted(Exception):
    """Raised by the progress callback between two batches, as Ctrl-C would."""


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


def _peak_mb() -> float:
    """The process's peak resident set so far (``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _status(memory: Memory) -> Backfill:
    [found] = memory.backfills(TENANT)
    return found


def run(url: str, facts: int, batch: int) -> dict[str, Any]:
    with Memory(url) as memory:
        subjects = _fill(memory, facts)
        filled_peak = _peak_mb()
        rng = random.Random(3)
        before = datetime.now(UTC)
        time.sleep(0.01)
        started = time.perf_counter()
        memory.retype(TENANT, "budget", "integer", quarantine=True, backfill=True, wait=False)
        step_seconds = time.perf_counter() - started

        # at least two batches, so that the run can stop halfway with subjects left to read unconverted
        batch = max(1, min(batch, subjects // 2))
        total_batches = -(-subjects // batch)
        halfway = max(1, total_batches // 2)

        first_batch: list[float] = []

        def stop_halfway(status: Backfill) -> None:
            if not first_batch:
                first_batch.append(time.perf_counter() - started)
            if status.batches_done >= halfway:
                raise Interrupted

        started = time.perf_counter()
        try:
            memory.run_backfill(TENANT, batch=batch, progress=stop_halfway)
        except Interrupted:
            pass
        first_seconds = time.perf_counter() - started
        stopped = _status(memory)

        def pick() -> str:
            return f"p{rng.randrange(subjects)}"

        # p0, p1, p10, p100, ... sort as text: the subjects after the last one done are those not converted
        ordered = sorted(f"p{s}" for s in range(subjects))
        done, behind = ordered[:stopped.subjects_done], ordered[stopped.subjects_done:]

        def pick_behind() -> str:
            return behind[rng.randrange(len(behind))]

        def pick_done() -> str:
            return done[rng.randrange(len(done))]

        during = timed_in_turn({
            "read_budget": lambda: memory.get(TENANT, pick(), "budget"),
            "read_budget_converted": lambda: memory.get(TENANT, pick_done(), "budget"),
            "read_budget_not_converted": lambda: memory.get(TENANT, pick_behind(), "budget"),
            "read_before_step_not_converted": lambda: memory.get(TENANT, pick_behind(), "budget", known_at=before),
            "read_untouched": lambda: memory.get(TENANT, pick(), "city"),
        }, READS)

        concurrent: dict[str, Any] = {}

        def read_while_running(other: Memory) -> None:
            concurrent["read_budget"] = timed(lambda: other.get(TENANT, pick(), "budget"), READS // 2)
            concurrent["read_untouched"] = timed(lambda: other.get(TENANT, pick(), "city"), READS // 2)

        # the readers' own Memory (a connection of their own), as a server beside `sgam schema backfill`
        with Memory(url) as other:
            reader = threading.Thread(target=read_while_running, args=(other,))
            started = time.perf_counter()
            reader.start()
            memory.run_backfill(TENANT, batch=batch)
            resume_seconds = time.perf_counter() - started
            reader.join()
        done = _status(memory)
        backfill_seconds = first_seconds + resume_seconds

        after = timed_in_turn({
            "read_budget": lambda: memory.get(TENANT, pick(), "budget"),
            "read_before_step": lambda: memory.get(TENANT, pick(), "budget", known_at=before),
            "read_untouched": lambda: memory.get(TENANT, pick(), "city"),
        }, READS)
        result: dict[str, Any] = {
            "backend": url.partition(":")[0], "facts": facts, "subjects": subjects, "batch_subjects": batch,
            "step_seconds": round(step_seconds, 3),
            "first_batch_seconds": round(first_batch[0], 2),
            "backfill_seconds": round(backfill_seconds, 1),
            "backfill_rows_per_s": round(facts / backfill_seconds),
            "peak_rss_mb_after_fill": filled_peak, "peak_rss_mb": _peak_mb(),
            "quarantined": len(memory.quarantined(TENANT, "budget")),
            "resume": {"batches_before": stopped.batches_done, "subjects_before": stopped.subjects_done,
                       "batches_after": done.batches_done, "subjects_after": done.subjects_done,
                       "batches_expected": total_batches, "finished": done.finished},
            "during_backfill": during, "while_backfill_runs": concurrent, "after_backfill": after,
        }
        untouched = during["read_untouched"]["p50_us"]
        result["during_vs_untouched_p50"] = round(during["read_budget"]["p50_us"] / untouched, 2)
        result["not_converted_vs_untouched_p50"] = round(during["read_budget_not_converted"]["p50_us"] / untouched, 2)
        result["after_vs_untouched_p50"] = round(after["read_budget"]["p50_us"] / after["read_untouched"]["p50_us"], 2)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", default="10000,100000", help="comma-separated sizes")
    parser.add_argument("--batch", type=int, default=500, help="subjects per backfill batch")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite",
                        help="a temporary SQLite file, or an embedded PostgreSQL server")
    parser.add_argument("--db", help="a PostgreSQL URL of a fresh database (instead of --backend)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.facts.split(",")]
    if min(sizes) < 2 * VERSIONS:
        parser.error(f"--facts: each size must be at least {2 * VERSIONS} (two subjects of {VERSIONS} versions)")
    if args.batch < 1:
        parser.error("--batch: must be at least 1")
    runs = []
    for size in sizes:
        if args.db:
            runs.append(run(args.db, size, args.batch))
            continue
        with temporary_url(args.backend, "migrations") as url:
            runs.append(run(url, size, args.batch))
    if args.json:
        print(json.dumps({"sizes": runs}, indent=2))
        return
    for found in runs:
        during, resume = found["during_backfill"], found["resume"]
        print(f"{found['facts']:>9,} facts: step recorded in {found['step_seconds']} s; backfill "
              f"{found['backfill_seconds']} s ({found['backfill_rows_per_s']:,} rows/s), peak RSS "
              f"{found['peak_rss_mb']} MB ({found['peak_rss_mb_after_fill']} MB after the fill), "
              f"{found['quarantined']} set aside")
        print(f"    interrupted after {resume['batches_before']} batches ({resume['subjects_before']} subjects), "
              f"resumed to {resume['batches_after']} of {resume['batches_expected']} expected "
              f"({resume['subjects_after']} subjects)")
        print(f"    during the backfill, p50/p99 us: budget {during['read_budget']['p50_us']}/"
              f"{during['read_budget']['p99_us']}, converted {during['read_budget_converted']['p50_us']}/"
              f"{during['read_budget_converted']['p99_us']}, not converted "
              f"{during['read_budget_not_converted']['p50_us']}/"
              f"{during['read_budget_not_converted']['p99_us']}, known_at before the step (not converted) "
              f"{during['read_before_step_not_converted']['p50_us']}/"
              f"{during['read_before_step_not_converted']['p99_us']}, untouched "
              f"{during['read_untouched']['p50_us']}/{during['read_untouched']['p99_us']} "
              f"({found['during_vs_untouched_p50']}x; not converted {found['not_converted_vs_untouched_p50']}x)")
        running = found["while_backfill_runs"]
        print(f"    while the backfill runs (another thread): budget {running['read_budget']['p50_us']}/"
              f"{running['read_budget']['p99_us']}, untouched {running['read_untouched']['p50_us']}/"
              f"{running['read_untouched']['p99_us']}")
        after = found["after_backfill"]
        print(f"    after: budget {after['read_budget']['p50_us']}, known_at before the step "
              f"{after['read_before_step']['p50_us']}, untouched {after['read_untouched']['p50_us']} "
              f"({found['after_vs_untouched_p50']}x)")


if __name__ == "__main__":
    main()
