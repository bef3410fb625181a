"""Renaming a directory of many documents: how long the one write transaction takes.

A rename is one unit of work, so the time it takes is the time every other write of the
tenant (of the whole file, on SQLite) waits. A script, not a timed test.

    .venv/bin/python bench/document_rename.py                       # SQLite, 10,000 documents
    .venv/bin/python bench/document_rename.py --docs 2000 --backend postgres
"""

from __future__ import annotations

import argparse
import time

from _stores import temporary_url

from sgam import Memory

TENANT = "bench"


def run(backend: str, docs: int, rounds: int) -> list[float]:
    with temporary_url(backend, "rename") as url, Memory(url) as memory:
        documents = memory.documents
        for index in range(docs):
            documents.write(TENANT, f"/memories/big/d{index % 50}/n{index}.md",
                            f"# note {index}\n\nline one of {index}\nline two of {index}\n")
        documents.write(TENANT, "/memories/elsewhere.md", "not moved\n")
        seconds = []
        names = ["/memories/big", "/memories/moved"]
        for round_ in range(rounds):
            old, new = names[round_ % 2], names[(round_ + 1) % 2]
            start = time.perf_counter()
            moved = documents.rename(TENANT, old, new)
            seconds.append(time.perf_counter() - start)
            assert len(moved) == docs
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    seconds = run(args.backend, args.docs, args.rounds)
    print(f"{args.backend}: rename of a directory of {args.docs} documents, {args.rounds} rounds")
    print("  " + "  ".join(f"{s:.2f} s" for s in seconds) + f"  (best {min(seconds):.2f} s)")


if __name__ == "__main__":
    main()
