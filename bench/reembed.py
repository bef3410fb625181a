"""Re-embedding benchmark: a tenant of N episodes embedded by one model is re-embedded by
another (``Memory.reembed``, what ``sgam index --embedder`` runs) while searches go on.

Workload: N episodes of generated sentences (a few topic words each, with names and
numbers), stored with WordLlama vectors (``wordllama``); one current fact per 100
episodes. The build of Model2Vec's vectors (the shared static model) runs in a child
process, as ``sgam index`` would, in batches of ``--batch``; the parent times hybrid
searches (the ``default`` preset, limit 10) one after the other before the build, during
it and after the switch. Reported: the build's rows per second (episodes and facts
embedded and stored, over the wall time of the build and its switch), search p50/p99
before, during and after, and the ratio of the p50 during the build to the one before.

    python bench/reembed.py --episodes 10000,50000
    python bench/reembed.py --episodes 10000 --backend both --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stores import temporary_url  # noqa: E402

from sgam import Memory  # noqa: E402

TENANT = "bench"
OLD = "wordllama"
NEW = f"model2vec:{Path(__file__).resolve().parents[2] / 'shared' / 'models' / 'minilm-l6-static-256'}"
FILL_BATCH = 1000
WORDS = ["tea", "river", "passport", "deadline", "Lisbon", "guitar", "bread", "marathon", "tax", "dentist",
         "birthday", "bicycle", "mountain", "novel", "tomato", "kitten", "train", "concert", "garden", "invoice",
         "wedding", "flight", "recipe", "doctor", "school", "meeting", "holiday", "camera", "painting", "coffee"]
NAMES = ["ann", "bob", "mira", "olu", "kai", "sam"]
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _fill(memory: Memory, episodes: int) -> None:
    rng = random.Random(7)
    for start in range(0, episodes, FILL_BATCH):
        batch = []
        for i in range(start, min(start + FILL_BATCH, episodes)):
            words = rng.sample(WORDS, 3)
            batch.append({"id": f"e{i}", "at": T0 + timedelta(minutes=i), "speaker": NAMES[i % len(NAMES)],
                          "session": f"s{i // 20}", "text": f"{NAMES[(i + 1) % len(NAMES)]} said the {words[0]} "
                          f"and the {words[1]} were about {words[2]}, item {i}"})
        memory.add_episodes(TENANT, batch)
    memory.write_many(TENANT, [{"subject": f"p{i}", "attribute": "likes", "value": WORDS[i % len(WORDS)],
                                "valid_from": T0, "source": f"e{i}"} for i in range(0, episodes, 100)])


def _questions(count: int) -> list[str]:
    rng = random.Random(11)
    return [f"what did {rng.choice(NAMES)} say about the {rng.choice(WORDS)} and {rng.choice(WORDS)}"
            for _ in range(count)]


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"searches": len(ordered), "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2)}


def _search_ms(memory: Memory, question: str) -> float:
    started = time.perf_counter_ns()
    memory.search(TENANT, question, limit=10)
    return (time.perf_counter_ns() - started) / 1e6


def _build(url: str, batch: int, done: Any) -> None:
    """The child process: what ``sgam index --embedder NEW`` runs."""
    from sgam.search import load_embedder

    load_embedder(NEW)  # the model read from disk once, as a running process would have it
    with Memory(url) as memory:
        started = time.perf_counter()
        found = memory.reembed(TENANT, NEW, batch=batch)
        done.put({"seconds": time.perf_counter() - started, "episodes": found.episodes, "facts": found.facts,
                  "searching": found.searching})


def run(url: str, backend: str, episodes: int, batch: int, searches: int) -> dict[str, Any]:
    from sgam.search import load_embedder

    with Memory(url, embedder=load_embedder(OLD)) as memory:
        started = time.perf_counter()
        _fill(memory, episodes)
        fill_seconds = time.perf_counter() - started
        questions = _questions(searches)
        for question in questions[:20]:  # the vector copy and caches filled
            memory.search(TENANT, question, limit=10)
        before = [_search_ms(memory, question) for question in questions]
        done: Any = multiprocessing.get_context("spawn").Queue()
        child = multiprocessing.get_context("spawn").Process(target=_build, args=(url, batch, done))
        child.start()
        during: list[float] = []
        while child.is_alive() and done.empty():
            during.append(_search_ms(memory, questions[len(during) % len(questions)]))
        built = done.get()
        child.join()
        after = [_search_ms(memory, question) for question in questions]
        assert memory.index_status(TENANT).searching == built["searching"]
    rows = built["episodes"] + built["facts"]
    result = {
        "backend": backend, "episodes": episodes, "batch": batch, "fill_seconds": round(fill_seconds, 1),
        "build_seconds": round(built["seconds"], 2), "build_rows_per_s": round(rows / built["seconds"]),
        "search_before": _percentiles(before), "search_during": _percentiles(during) if during else None,
        "search_after": _percentiles(after),
    }
    if during:
        result["during_vs_before_p50"] = round(result["search_during"]["p50_ms"] / result["search_before"]["p50_ms"], 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", default="10000,50000", help="comma-separated sizes")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--batch", type=int, default=1000, help="rows per transaction of the build")
    parser.add_argument("--searches", type=int, default=200, help="searches timed before and after")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    runs = []
    for backend in backends:
        for size in (int(size) for size in args.episodes.split(",")):
            with temporary_url(backend, "reembed") as url:
                runs.append(run(url, backend, size, args.batch, args.searches))
    if args.json:
        print(json.dumps({"runs": runs}, indent=2))
        return
    for found in runs:
        during = found["search_during"] or {"p50_ms": "-", "searches": 0}
        print(f"{found['backend']:>8} {found['episodes']:>7,} episodes: build {found['build_seconds']} s "
              f"({found['build_rows_per_s']:,} rows/s); search p50 before {found['search_before']['p50_ms']} ms, "
              f"during {during['p50_ms']} ms ({during['searches']} searches, "
              f"{found.get('during_vs_before_p50', '-')}x), after {found['search_after']['p50_ms']} ms")


if __name__ == "__main__":
    main()
