"""Memory type version benchmark: a new version of a typed memory type (a Pydantic model)
converting N stored values with a Python function, beside reads of an untouched
attribute in the same run.

Workload: N/5 subjects, each with five versions of ``plan`` (memory type ``trip``,
``{"city": ..., "nights": "<digits>"}``; every 50th value's nights is a word the function
cannot convert) and one ``city``, each subject's writes from an episode of its own. The
store is bulk-loaded (``write_many``); then ``register_memory_type(trip, TripV2,
convert=...)`` runs as one recorded step and is timed (values per second, peak RSS of
the process, calls of the function: once per distinct value per batch); on more than
2,000 subjects the step is backfilled (the function called a batch of subjects at a
time, the versions derived again after it), unless ``--backfill no`` takes it in one
transaction. Reads are timed one by one
on random subjects: a current read of ``plan`` after the step, a read at a ``known_at``
before it (the old version), a current read of the untouched ``city``; then erasures of a
subject's episode after the step, which re-derive its keys of ``plan`` from what the
function made of them (``converted_values``) without calling it, beside erasures of
others before the step.

    python bench/model_versions.py --facts 10000,100000
    python bench/model_versions.py --facts 100000 --backfill no            # in one transaction, as before
    python bench/model_versions.py --facts 10000 --backend postgres --json   # an embedded server, deleted after
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from _stores import temporary_url
from _timing import timed
from pydantic import BaseModel

from sgam import Memory

TENANT = "bench"
VERSIONS = 5
BATCH = 10_000
READS = 2_000
ERASURES = 50
T0 = datetime(2020, 1, 1, tzinfo=UTC)


class TripV1(BaseModel):
    city: str
    nights: str


class TripV2(BaseModel):
    destination: str
    nights: int


class Counted:
    """The conversion function, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, old: dict[str, Any]) -> TripV2:
        self.calls += 1
        return TripV2(destination=old["city"], nights=int(old["nights"]))


def _fill(memory: Memory, facts: int) -> int:
    memory.register_memory_type(TENANT, "trip", TripV1)
    memory.declare(TENANT, "plan", "object", memory_type="trip")
    subjects = max(1, facts // VERSIONS)
    episodes = [{"id": f"e{s}", "at": T0, "text": f"trips of p{s}"} for s in range(subjects)]
    for start in range(0, len(episodes), BATCH):
        memory.add_episodes(TENANT, episodes[start:start + BATCH])
    batch: list[dict[str, Any]] = []
    for version in range(VERSIONS):
        for subject in range(subjects):
            number = version * subjects + subject
            nights = "many" if number % 50 == 0 else str(number % 30)
            batch.append({"subject": f"p{subject}", "attribute": "plan", "value": {"city": f"c{number}",
                                                                                   "nights": nights},
                          "valid_from": T0 + timedelta(days=30 * version), "source": f"e{subject}"})
            if len(batch) >= BATCH:
                memory.write_many(TENANT, batch)
                batch.clear()
    batch += [{"subject": f"p{s}", "attribute": "city", "value": "Oslo", "valid_from": T0, "source": f"e{s}"}
              for s in range(subjects)]
    for start in range(0, len(batch), BATCH):
        memory.write_many(TENANT, batch[start:start + BATCH])
    return subjects


def run(url: str, facts: int, backfill: bool | None) -> dict[str, Any]:
    with Memory(url) as memory:
        subjects = _fill(memory, facts)
        rng = random.Random(3)
        doomed = iter(rng.sample(range(subjects), min(2 * ERASURES, subjects)))
        erasures = min(ERASURES, subjects // 2)
        forget_before = timed(lambda: memory.forget_episode(TENANT, f"e{next(doomed)}"), erasures)
        before = datetime.now(UTC)
        time.sleep(0.01)
        function = Counted()
        started = time.perf_counter()
        memory.register_memory_type(TENANT, "trip", TripV2, convert=function, backfill=backfill)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        def pick() -> str:
            return f"p{rng.randrange(subjects)}"

        result: dict[str, Any] = {
            "facts": facts, "backfilled": bool(memory.backfills(TENANT)),
            "step_seconds": round(seconds, 2), "step_values_per_s": round(facts / seconds),
            "function_calls": function.calls, "peak_rss_mb": round(peak, 1),
            "set_aside": len(memory.quarantined(TENANT, "plan")),
            "read_converted": timed(lambda: memory.get(TENANT, pick(), "plan"), READS),
            "read_before_step": timed(lambda: memory.get(TENANT, pick(), "plan", known_at=before), READS),
            "read_untouched": timed(lambda: memory.get(TENANT, pick(), "city"), READS),
        }
        result["forget_episode_before_step"] = forget_before
        result["forget_episode"] = timed(lambda: memory.forget_episode(TENANT, f"e{next(doomed)}"), erasures)
        result["converted_vs_untouched"] = round(
            result["read_converted"]["p50_us"] / result["read_untouched"]["p50_us"], 2)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", default="10000", help="comma-separated sizes")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--backfill", choices=("auto", "no"), default="auto",
                        help="auto: backfilled above 2,000 subjects; no: in one transaction")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = []
    for size in (int(size) for size in args.facts.split(",")):
        with temporary_url(args.backend, "model-versions") as url:
            runs.append(run(url, size, None if args.backfill == "auto" else False))
    if args.json:
        print(json.dumps({"backend": args.backend, "sizes": runs}, indent=2))
        return
    for found in runs:
        how = " (backfilled)" if found["backfilled"] else ""
        print(f"{found['facts']:>9,} values{how}: step {found['step_seconds']} s "
              f"({found['step_values_per_s']:,} values/s, "
              f"{found['function_calls']:,} calls), peak RSS {found['peak_rss_mb']} MB, {found['set_aside']} set "
              f"aside; read p50 converted {found['read_converted']['p50_us']} us, before the step "
              f"{found['read_before_step']['p50_us']} us, untouched {found['read_untouched']['p50_us']} us "
              f"({found['converted_vs_untouched']}x); forget_episode p50 {found['forget_episode']['p50_us']} us "
              f"(before the step {found['forget_episode_before_step']['p50_us']} us)")


if __name__ == "__main__":
    main()
