"""Document memory: memory-tool commands and document search, timed per call.

Prints a table per backend: median and p95 of each command over a tenant holding N
documents, and of ``Documents.search``. A script, not a timed test.

    .venv/bin/python bench/documents.py                      # SQLite, 1,000 documents
    .venv/bin/python bench/documents.py --docs 200 --postgres postgresql://...   # both
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sgam import Memory
from sgam.documents import MemoryTool

TENANT = "bench"


def timed(calls: int, call: Callable[[int], object]) -> tuple[float, float]:
    samples = []
    for index in range(calls):
        start = time.perf_counter_ns()
        call(index)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def path(index: int) -> str:
    return f"/memories/d{index % 20}/n{index}.md"


def run(url: str, docs: int, calls: int) -> list[tuple[str, float, float]]:
    rows: list[tuple[str, float, float]] = []
    with Memory(url) as memory:
        tool = MemoryTool(memory, TENANT)

        def ok(input: dict[str, object]) -> None:
            result = tool.run(input)
            assert not result.is_error, result.text

        body = "".join(f"line {n}: notes about topic {n % 37} and project {n % 11}\n" for n in range(60))
        rows.append(("create", *timed(docs, lambda i: ok({"command": "create", "path": f"/memories/d{i % 20}/n{i}.md",
                                                            "file_text": body}))))
        rows.append(("view file", *timed(calls, lambda i: ok({"command": "view", "path": path(i)}))))
        rows.append(("view dir", *timed(calls, lambda i: ok({"command": "view", "path": f"/memories/d{i % 20}"}))))
        rows.append(("str_replace", *timed(calls, lambda i: ok({
            "command": "str_replace", "path": f"/memories/d{i % 20}/n{i}.md", "old_str": "line 30:",
            "new_str": f"line 30 (edited {i}):"}))))
        rows.append(("insert", *timed(calls, lambda i: ok({"command": "insert", "path": f"/memories/d{i % 20}/n{i}.md",
                                                             "insert_line": 10, "insert_text": "inserted"}))))
        rows.append(("search", *timed(calls, lambda i: memory.documents.search(TENANT, f"topic {i % 37} project"))))
        rows.append(("rename", *timed(calls, lambda i: ok({"command": "rename", "old_path": path(i),
                                                             "new_path": f"/memories/moved/n{i}.md"}))))
        rows.append(("delete", *timed(calls, lambda i: ok({"command": "delete", "path": f"/memories/moved/n{i}.md"}))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000, help="documents in the tenant (default 1000)")
    parser.add_argument("--calls", type=int, default=200, help="timed calls per command (default 200)")
    parser.add_argument("--postgres", help="also run on this PostgreSQL URL (an empty database)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        targets = [("sqlite", f"sqlite:///{Path(folder) / 'bench.db'}")]
        if args.postgres:
            targets.append(("postgres", args.postgres))
        for name, url in targets:
            print(f"\n{name}: {args.docs} documents of 60 lines, {min(args.calls, args.docs)} calls each")
            print(f"{'command':<12} {'median ms':>10} {'p95 ms':>10}")
            for command, median, p95 in run(url, args.docs, min(args.calls, args.docs)):
                print(f"{command:<12} {median:>10.2f} {p95:>10.2f}")


if __name__ == "__main__":
    main()
