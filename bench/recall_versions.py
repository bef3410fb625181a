"""Search and recall latency of two sgam source trees, same data, same run.

    git worktree add --detach /tmp/sgam-old <commit>
    .venv/bin/python bench/recall_versions.py --old /tmp/sgam-old/src [--size 100000] [--queries 100] [--json]

Each tree runs in its own worker process (``PYTHONPATH`` set to that tree's ``src``),
builds the same store as ``recall.py`` (synthetic Zipf sentences, 50-turn sessions, the
static model, default preset), and waits. The parent then sends each question to both
workers in turn, alternating which goes first; only one worker works at a time, so load
from the rest of the machine falls on both alike. Each worker times its own ``search``
(limit 10) and ``recall`` (budget 1,000) with ``perf_counter``.
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


def worker(size: int, model: Path, folder: Path) -> None:
    """Build the store, then answer one question per input line with its timings."""
    import numpy as np

    import sgam
    from recall import BATCH, TENANT, sentences, vocabulary
    from sgam import Memory
    from sgam.search import Model2VecEmbedder

    words = vocabulary(model)
    texts = sentences(words, size, 12, 30, np.random.default_rng(size))
    with Memory(f"sqlite:///{folder / 'versions.db'}", embedder=Model2VecEmbedder(model)) as memory:
        for start in range(0, size, BATCH):
            memory.add_episodes(TENANT, [
                {"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": texts[i], "speaker": "abcd"[i % 4],
                 "session": f"s{i // 50}"} for i in range(start, min(size, start + BATCH))
            ])
        memory.search(TENANT, texts[0])
        print(json.dumps({"ready": True, "sgam": str(Path(sgam.__file__).parent)}), flush=True)
        for line in sys.stdin:
            question = json.loads(line)["question"]
            t0 = time.perf_counter()
            memory.search(TENANT, question, limit=10)
            t1 = time.perf_counter()
            memory.recall(TENANT, question, budget=1000)
            t2 = time.perf_counter()
            print(json.dumps({"search": (t1 - t0) * 1000, "recall": (t2 - t1) * 1000}), flush=True)


def _start(src: Path, size: int, model: Path, folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(HERE)])}
    process = subprocess.Popen(
        [sys.executable, __file__, "--worker", "--size", str(size), "--model", str(model), "--dir", str(folder)],
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


def _ask(process: subprocess.Popen[str], question: str) -> dict[str, float]:
    assert process.stdin is not None
    process.stdin.write(json.dumps({"question": question}) + "\n")
    process.stdin.flush()
    answer: dict[str, float] = json.loads(_read(process.stdout))
    return answer


def measure(old: Path, size: int, queries: int, model: Path) -> dict[str, Any]:
    import numpy as np

    from recall import percentile, sentences, vocabulary

    questions = sentences(vocabulary(model), queries, 3, 8, np.random.default_rng(size + 1))
    timings: dict[str, dict[str, list[float]]] = {name: {"search": [], "recall": []} for name in ("old", "new")}
    with tempfile.TemporaryDirectory(prefix="sgam-bench-") as folder:
        workers = {}
        for name, src in (("old", old), ("new", NEW_SRC)):
            (Path(folder) / name).mkdir()
            workers[name] = _start(src, size, model, Path(folder) / name)
        try:
            for number, question in enumerate(questions):
                for name in (("old", "new") if number % 2 == 0 else ("new", "old")):
                    for kind, value in _ask(workers[name], question).items():
                        timings[name][kind].append(value)
        finally:
            for process in workers.values():
                if process.stdin is not None:
                    process.stdin.close()
                process.wait()
    return {"episodes": size, "queries": queries, "old_src": str(old), "load_average": round(os.getloadavg()[0], 2), **{
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
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.size, args.model, args.dir)
        return
    if args.old is None or not (args.old / "sgam").is_dir():
        raise SystemExit("--old must name the src folder of an sgam tree (e.g. /tmp/sgam-old/src)")
    result = measure(args.old, args.size, args.queries, args.model)
    if args.json:
        print(json.dumps(result))
        return
    for name in ("old", "new"):
        print(f"{name:>4}: search p50 {result[name]['search']['p50']} ms p99 {result[name]['search']['p99']} ms"
              f"  recall p50 {result[name]['recall']['p50']} ms p99 {result[name]['recall']['p99']} ms")


if __name__ == "__main__":
    main()
