"""Search and recall latency of two sgam source trees, same data, same run.

    git worktree add --detach /tmp/sgam-old <commit>
    .venv/bin/python bench/recall_versions.py --old /tmp/sgam-old/src [--size 100000] [--queries 100] [--json]
    .venv/bin/python bench/recall_versions.py --old /tmp/sgam-old/src --backend postgres [--db ADMIN_URL]

Each tree runs in its own worker process (``PYTHONPATH`` set to that tree's ``src``),
builds the same store as ``recall.py`` (synthetic Zipf sentences, 50-turn sessions, the
static model, default preset), and waits. The parent then sends each question to both
workers in turn, alternating which goes first; only one worker works at a time, so load
from the rest of the machine falls on both alike. Each worker times its own ``search``
(limit 10) and ``recall`` (budget 1,000) with ``perf_counter``, and reports the search's
episode ids and the recall's text, so the parent can count answers the trees agree on.

On PostgreSQL (an embedded server unless ``--db`` names one) the parent fills one
``sgam_bench`` database with this tree, as ``recall.py`` does, and both workers search
it as the application role right after the ingest, on tables as fresh as production's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
NEW_SRC = HERE.parent / "src"


def fill(url: str, size: int, model: Path) -> None:
    """The benchmark's store: ``size`` synthetic turns in 50-turn sessions."""
    import numpy as np

    from recall import BATCH, TENANT, sentences, vocabulary
    from sgam import Memory
    from sgam.search import Model2VecEmbedder

    texts = sentences(vocabulary(model), size, 12, 30, np.random.default_rng(size))
    with Memory(url, embedder=Model2VecEmbedder(model)) as memory:
        for start in range(0, size, BATCH):
            memory.add_episodes(TENANT, [
                {"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": texts[i], "speaker": "abcd"[i % 4],
                 "session": f"s{i // 50}"} for i in range(start, min(size, start + BATCH))
            ])


def worker(size: int, model: Path, folder: Path, url: str | None) -> None:
    """Build the store (or open the filled one at ``url``), then answer one question per
    input line with its timings and answers."""
    import sgam
    from recall import TENANT
    from sgam import Memory
    from sgam.search import Model2VecEmbedder

    if url is None:
        url = f"sqlite:///{folder / 'versions.db'}"
        fill(url, size, model)
    with Memory(url, embedder=Model2VecEmbedder(model)) as memory:
        memory.search(TENANT, "warm the process")
        print(json.dumps({"ready": True, "sgam": str(Path(sgam.__file__).parent)}), flush=True)
        for line in sys.stdin:
            question = json.loads(line)["question"]
            t0 = time.perf_counter()
            hits = memory.search(TENANT, question, limit=10)
            t1 = time.perf_counter()
            context = memory.recall(TENANT, question, budget=1000)
            t2 = time.perf_counter()
            print(json.dumps({"search": (t1 - t0) * 1000, "recall": (t2 - t1) * 1000,
                              "answers": [[hit.episode_id for hit in hits], context.text]}), flush=True)


def _start(src: Path, size: int, model: Path, folder: Path, url: str | None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(HERE)])}
    process = subprocess.Popen(
        [sys.executable, __file__, "--worker", "--size", str(size), "--model", str(model), "--dir", str(folder),
         *(["--url", url] if url else [])],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    ready = json.loads(_read(process.stdout))
    if ready.get("sgam") != str(src / "sgam"):
        raise SystemExit(f"the worker for {src} imported sgam from {ready.get('sgam')}")
    return process


def _read(stream: IO[str] | None) -> str:
    line = stream.readline() if stream is not None else ""
    if not line:
        raise SystemExit("a worker stopped")
    return line


def _ask(process: subprocess.Popen[str], question: str) -> dict[str, Any]:
    assert process.stdin is not None
    process.stdin.write(json.dumps({"question": question}) + "\n")
    process.stdin.flush()
    answer: dict[str, Any] = json.loads(_read(process.stdout))
    return answer


def measure(old: Path, size: int, queries: int, model: Path, url: str | None = None) -> dict[str, Any]:
    import numpy as np

    from recall import percentile, sentences, vocabulary

    questions = sentences(vocabulary(model), queries, 3, 8, np.random.default_rng(size + 1))
    timings: dict[str, dict[str, list[float]]] = {name: {"search": [], "recall": []} for name in ("old", "new")}
    agreed = 0
    with tempfile.TemporaryDirectory(prefix="sgam-bench-") as folder:
        workers = {}
        for name, src in (("old", old), ("new", NEW_SRC)):
            (Path(folder) / name).mkdir()
            workers[name] = _start(src, size, model, Path(folder) / name, url)
        try:
            for number, question in enumerate(questions):
                answers = []
                for name in (("old", "new") if number % 2 == 0 else ("new", "old")):
                    answer = _ask(workers[name], question)
                    answers.append(answer.pop("answers"))
                    for kind, value in answer.items():
                        timings[name][kind].append(value)
                agreed += answers[0] == answers[1]
        finally:
            for process in workers.values():
                if process.stdin is not None:
                    process.stdin.close()
                process.wait()
    return {"episodes": size, "queries": queries, "old_src": str(old), "load_average": round(os.getloadavg()[0], 2),
            "same_answers": agreed, **{
        name: {kind: {"p50": round(statistics.median(values), 2), "p99": round(percentile(values, 0.99), 2)}
               for kind, values in timing.items()} for name, timing in timings.items()}}


def main() -> None:
    from recall import DEFAULT_MODEL

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--old", type=Path, help="the src folder of the older sgam tree")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--db", help="PostgreSQL admin URL (default: an embedded server)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.size, args.model, args.dir, args.url)
        return
    if args.old is None or not (args.old / "sgam").is_dir():
        raise SystemExit("--old must name the src folder of an sgam tree (e.g. /tmp/sgam-old/src)")
    load_at_start = os.getloadavg()[0]
    url = None
    if args.backend == "postgres":
        from postgres_ledger import prepare, start_server

        url = prepare(args.db or start_server())[1]
        started = time.perf_counter()
        fill(url, args.size, args.model)
        print(f"ingest {args.size / (time.perf_counter() - started):,.0f} episodes/s (this tree)", file=sys.stderr)
    result = {"backend": args.backend, "load_average_start": round(load_at_start, 2),
              **measure(args.old, args.size, args.queries, args.model, url)}
    if args.json:
        print(json.dumps(result))
        return
    for name in ("old", "new"):
        print(f"{name:>4}: search p50 {result[name]['search']['p50']} ms p99 {result[name]['search']['p99']} ms"
              f"  recall p50 {result[name]['recall']['p50']} ms p99 {result[name]['recall']['p99']} ms")
    print(f"same search results and recall text for {result['same_answers']} of {args.queries} questions; "
          f"load average {result['load_average_start']} -> {result['load_average']}")


if __name__ == "__main__":
    main()
