"""PostgreSQL: what a refused write costs beside an accepted one (not a test).

    python bench/postgres_refusals.py [--writes 300] [--rounds 3] [--json]

Each round makes ``--writes`` writes the planner refuses inside their unit of work (a
value not of the attribute's declared type), then as many accepted ones, through one
``Memory`` and its connection pool on an embedded PostgreSQL. Printed per kind: the
median time of the rounds, the server sessions opened meanwhile (``pg_stat_database``
``sessions``, less the one that asks) and the warnings logged, and the same-run ratio of
refused to accepted. A refusal that rolls back on its own connection opens no session
and logs nothing; one that closed its pooled connection opened a session each.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time

import psycopg
from _stores import temporary_url

from sgam import Memory, ValidationError

T1 = "2026-06-01T09:00:00Z"


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.seen += 1


def _sessions(url: str) -> int:
    """Sessions the server has opened on this database so far, this one included."""
    with psycopg.connect(url, autocommit=True) as conn:
        time.sleep(1.0)  # a backend reports its statistics within a second of its work
        row = conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()").fetchone()
    assert row is not None
    return int(row[0])


def _round(memory: Memory, url: str, writes: int, refused: bool, start: int, warnings: _Count) -> dict[str, float]:
    before, logged = _sessions(url), warnings.seen
    started = time.perf_counter()
    for i in range(writes):
        if refused:
            try:
                memory.write("acme", "mira", "age", "forty", T1, "e1")
            except ValidationError:
                continue
            raise AssertionError("a value not of the declared type was accepted")
        memory.write("acme", f"s{start + i}", "age", i, T1, "e1")
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "sessions": _sessions(url) - before - 1, "warnings": warnings.seen - logged}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings = _Count()
    logging.getLogger().addHandler(warnings)
    runs: dict[str, list[dict[str, float]]] = {"refused": [], "accepted": []}
    with temporary_url("postgres", "refusals") as url, Memory(url) as memory:
        memory.declare("acme", "age", "integer")
        memory.add_episode("acme", "e1", T1, "Mira is forty.")
        memory.write("acme", "mira", "age", 40, T1, "e1")
        for round_number in range(args.rounds):
            for kind in runs:
                runs[kind].append(_round(memory, url, args.writes, kind == "refused",
                                         round_number * args.writes, warnings))
    report = {kind: {"median_seconds": round(statistics.median(r["seconds"] for r in rounds), 3),
                     "sessions_opened": sum(int(r["sessions"]) for r in rounds),
                     "warnings": sum(int(r["warnings"]) for r in rounds)}
              for kind, rounds in runs.items()}
    ratio = report["refused"]["median_seconds"] / report["accepted"]["median_seconds"]
    if args.json:
        print(json.dumps({"writes": args.writes, "rounds": args.rounds, **report, "refused_to_accepted": ratio}))
        return
    for kind, figures in report.items():
        print(f"{args.writes} {kind} writes: median {figures['median_seconds']:.2f} s of {args.rounds} rounds, "
              f"{figures['sessions_opened']} sessions opened, {figures['warnings']} warnings")
    print(f"refused / accepted, same run: {ratio:.2f}")


if __name__ == "__main__":
    main()
