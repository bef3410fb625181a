"""Ranking cost: search and recall latency under two configurations, same data, same run.

    .venv/bin/python bench/recall_ranking.py [--size 100000] [--queries 200] [--model PATH] [--json]

The store is built as ``recall.py`` builds it (synthetic Zipf sentences, 50-turn
sessions, the static model). Each question is asked under both configurations back to
back, alternating which goes first, so machine load falls on both alike. ``before`` is the
ranking sgam shipped before session coverage, time words and present-tense ordering
(RRF k=20, vector weight 0.5, adjacent turns 0.5, speaker 0.1); ``after`` is today's
``default`` preset.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from recall import BATCH, DEFAULT_MODEL, TENANT, percentile, sentences, vocabulary
from sgam import Memory
from sgam.search import PRESETS, Model2VecEmbedder, SearchConfig

BEFORE = SearchConfig(vector_weight=0.5, rrf_k=20.0, neighbour_weight=0.5, speaker_weight=0.1,
                      recency_weight=0.05, importance_weight=0.05)


def measure(size: int, queries: int, model: Path, url: str) -> dict[str, Any]:
    embedder = Model2VecEmbedder(model)
    words = vocabulary(model)
    rng = np.random.default_rng(size)
    texts = sentences(words, size, 12, 30, rng)
    configs = {"before": BEFORE, "after": PRESETS["default"]}
    timings: dict[str, dict[str, list[float]]] = {name: {"search": [], "recall": []} for name in configs}
    with Memory(url, embedder=embedder) as memory:
        for start in range(0, size, BATCH):
            memory.add_episodes(TENANT, [
                {"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": texts[i], "speaker": "abcd"[i % 4],
                 "session": f"s{i // 50}"} for i in range(start, min(size, start + BATCH))
            ])
        questions = sentences(words, queries, 3, 8, rng)
        memory.search(TENANT, questions[0])
        for number, question in enumerate(questions):
            order = list(configs) if number % 2 == 0 else list(reversed(configs))
            for name in order:
                t0 = time.perf_counter()
                memory.search(TENANT, question, limit=10, config=configs[name])
                t1 = time.perf_counter()
                memory.recall(TENANT, question, budget=1000, config=configs[name])
                t2 = time.perf_counter()
                timings[name]["search"].append((t1 - t0) * 1000)
                timings[name]["recall"].append((t2 - t1) * 1000)
    return {"episodes": size, "queries": queries, **{
        name: {kind: {"p50": round(statistics.median(values), 2), "p99": round(percentile(values, 0.99), 2)}
               for kind, values in timing.items()} for name, timing in timings.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sgam-bench-") as folder:
        result = measure(args.size, args.queries, args.model, f"sqlite:///{Path(folder) / 'ranking.db'}")
    if args.json:
        print(json.dumps(result))
    else:
        for name in ("before", "after"):
            print(f"{name:>6}: search p50 {result[name]['search']['p50']} ms p99 {result[name]['search']['p99']} ms"
                  f"  recall p50 {result[name]['recall']['p50']} ms p99 {result[name]['recall']['p99']} ms")


if __name__ == "__main__":
    main()
