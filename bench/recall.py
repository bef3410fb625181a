"""Recall benchmark: ingest rate (with embeddings) and query latency at 10k and 100k episodes.

    .venv/bin/python bench/recall.py [--sizes 10000 100000] [--model PATH] [--json]
    .venv/bin/python bench/recall.py --backend postgres [--db ADMIN_URL] [--hnsw]   # default: embedded
    .venv/bin/python bench/recall.py --backend both --sizes 100000                  # one run, both, ratios

On PostgreSQL each size runs in a freshly emptied ``sgam_bench`` database as an
application role (row-level security in force), set up as ``postgres_ledger.py`` does.
``--hnsw`` lets the owner index the model's dimension (``sgam migrate --vector-dims``),
so vectors are searched through pgvector's HNSW index instead of an exact scan.

Episodes are synthetic sentences of 12-30 words drawn with a Zipf law from the model's
own word list (so embeddings and BM25 see realistic term statistics); queries are 3-8
words drawn the same way. Ingest uses ``Memory.add_episodes`` in batches of 1,000;
latency is measured on ``Memory.search`` (default preset, limit 10) and ``Memory.recall``
(budget 1,000) on a warm process, p50 and p99 over the query set. ``vector_recall_at_10``
is the share of the exact top 10 (float32 cosine over every episode, in numpy) that the
backend's vector channel returns, over ``--recall-queries`` questions. ``--backend both``
runs SQLite then PostgreSQL at each size in the same process and adds each size's
PostgreSQL ÷ SQLite p50 ratios (``postgres_vs_sqlite``), the figure to judge on a shared
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sgam import Memory
from sgam.search import Model2VecEmbedder
from sgam.search.text import STOPWORDS
from sgam.store import SearchFilter

# The static model beside the checkout, where present; --model points elsewhere.
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "shared" / "models" / "minilm-l6-static-256"
BATCH = 1_000
TENANT = "bench"


def vocabulary(model: Path) -> list[str]:
    """Function words first (the head of any Zipf law of English), then content words."""
    vocab = json.loads((model / "tokenizer.json").read_text())["model"]["vocab"]
    content = sorted((w for w in vocab if re.fullmatch(r"[a-z]{3,12}", w) and w not in STOPWORDS),
                     key=lambda w: vocab[w])
    rng = np.random.default_rng(0)
    rng.shuffle(content)
    return sorted(STOPWORDS) + content[:20_000]


def sentences(words: list[str], count: int, low: int, high: int, rng: np.random.Generator) -> list[str]:
    ranks = (rng.zipf(1.1, size=count * high) - 1) % len(words)
    lengths = rng.integers(low, high + 1, size=count)
    out, start = [], 0
    for length in lengths:
        out.append(" ".join(words[i] for i in ranks[start:start + length]))
        start += length
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def vector_recall(memory: Memory, embedder: Model2VecEmbedder, texts: list[str], speakers: list[str],
                  questions: list[str]) -> float:
    """Mean share of the exact top 10 that the store's vector channel returns."""
    stored = embedder.embed([f"{speakers[i % 4]}: {text}" for i, text in enumerate(texts)])
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    index = memory._search.index
    shares = []
    for question in questions:
        vector = embedder.embed([question])[0]
        vector /= np.linalg.norm(vector)
        exact = {f"e{i}" for i in np.argsort(-(stored @ vector))[:10]}
        with memory.backend.read(TENANT) as reader:
            keys = index.vector_episodes(reader, embedder.name, vector.astype(np.float32), SearchFilter(), 10)
            found = {row.row.episode_id for row in index.episodes_by_key(reader, keys).values()}
        shares.append(len(exact & found) / 10)
    return round(float(np.mean(shares)), 3)


def run_size(size: int, words: list[str], embedder: Model2VecEmbedder, queries: int, url: str,
             recall_queries: int) -> dict[str, Any]:
    rng = np.random.default_rng(size)
    texts = sentences(words, size, 12, 30, rng)
    speakers = ["ann", "bob", "cy", "dee"]
    with Memory(url, embedder=embedder) as memory:
        started = time.perf_counter()
        for start in range(0, size, BATCH):
            memory.add_episodes(TENANT, [
                {"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": texts[i], "speaker": speakers[i % 4],
                 "session": f"s{i // 50}"}
                for i in range(start, min(size, start + BATCH))
            ])
        ingest = time.perf_counter() - started
        questions = sentences(words, queries, 3, 8, rng)
        memory.search(TENANT, questions[0])  # warm the vector cache, as a long-lived process would be
        search_ms, recall_ms = [], []
        for question in questions:
            t0 = time.perf_counter()
            memory.search(TENANT, question, limit=10)
            t1 = time.perf_counter()
            memory.recall(TENANT, question, budget=1000)
            t2 = time.perf_counter()
            search_ms.append((t1 - t0) * 1000)
            recall_ms.append((t2 - t1) * 1000)
        at_10 = vector_recall(memory, embedder, texts, speakers, questions[:recall_queries]) if recall_queries else None
    return {
        "episodes": size,
        "ingest_episodes_per_s": round(size / ingest),
        "search_ms": {"p50": round(statistics.median(search_ms), 2), "p99": round(percentile(search_ms, 0.99), 2)},
        "recall_ms": {"p50": round(statistics.median(recall_ms), 2), "p99": round(percentile(recall_ms, 0.99), 2)},
        "vector_recall_at_10": at_10,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--db", help="PostgreSQL admin URL (default: an embedded server)")
    parser.add_argument("--hnsw", action="store_true", help="PostgreSQL: HNSW index on the model's dimension")
    parser.add_argument("--recall-queries", type=int, default=50,
                        help="questions for vector recall@10 against an exact scan (0: skip)")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    if not args.model.is_dir():
        sys.exit(f"no static model at {args.model}; pass --model PATH (a Model2Vec folder)")
    embedder = Model2VecEmbedder(args.model)
    words = vocabulary(args.model)
    results: dict[str, list[dict[str, Any]]] = {}
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    with tempfile.TemporaryDirectory(prefix="sgam-bench-") as folder:
        app = admin = None
        if "postgres" in backends:
            from postgres_ledger import APP_ROLE, prepare, reset, start_server

            from sgam.store.postgres import migrate

            admin, app = prepare(args.db or start_server())
            if args.hnsw:
                migrate(admin, grant_to=[APP_ROLE], vector_dimensions=[int(embedder.embed(["x"]).shape[1])])
        for size in args.sizes:
            for backend in backends:
                if backend == "postgres":
                    reset(admin)
                    url = app
                else:
                    url = f"sqlite:///{Path(folder) / f'recall-{size}.db'}"
                results.setdefault(backend, []).append(
                    run_size(size, words, embedder, args.queries, url, args.recall_queries))
    machine = {"when": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "python": sys.version.split()[0],
               "cpus": os.cpu_count(), "load_average_start": round(load_at_start, 2),
               "load_average_end": round(os.getloadavg()[0], 2)}
    ratios = [{"episodes": pg["episodes"],
               **{f"{what}_p50": round(pg[f"{what}_ms"]["p50"] / lite[f"{what}_ms"]["p50"], 2)
                  for what in ("search", "recall")}}
              for lite, pg in zip(results.get("sqlite", []), results.get("postgres", []), strict=False)]
    if args.json:
        shown: dict[str, Any] = ({"backend": args.backend, "results": results[args.backend]}
                                 if args.backend != "both" else
                                 {"backend": "both", "results": results, "postgres_vs_sqlite": ratios})
        print(json.dumps({**shown, "hnsw": args.hnsw, "model": embedder.name, "machine": machine}))
    else:
        for backend, rows in results.items():
            for r in rows:
                print(f"{backend:>8} {r['episodes']:>7} episodes  ingest {r['ingest_episodes_per_s']:>6}/s  "
                      f"search p50 {r['search_ms']['p50']} ms p99 {r['search_ms']['p99']} ms  "
                      f"recall p50 {r['recall_ms']['p50']} ms p99 {r['recall_ms']['p99']} ms  "
                      f"vector recall@10 {r['vector_recall_at_10']}")
        for ratio in ratios:
            print(f"PostgreSQL ÷ SQLite at {ratio['episodes']}: search p50 {ratio['search_p50']}, "
                  f"recall p50 {ratio['recall_p50']}")
        print(f"{machine['when']}, {machine['cpus']} CPUs, load average {machine['load_average_start']} at start, "
              f"{machine['load_average_end']} at end")


if __name__ == "__main__":
    main()
