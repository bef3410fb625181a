"""sgam on a Citus coordinator beside a single PostgreSQL server, in one run
(``bench/postgres_ledger.py --url COORDINATOR``).

The same workload runs on both, spread over 1, 4 and 16 tenants: batch ingest and
one-fact writes with one writer process per tenant (each writing its own tenant), then
point reads of the current value, one process asking the tenants in turn. Each tenant's
unit of work routes to the one worker that holds its shards, so the figures show what a
tenant pays for the hop from the coordinator. On one machine the coordinator, its workers
and the single server share the same cores: this measures the overhead Citus adds, not
the scale it brings.
"""

from __future__ import annotations

import multiprocessing
import random
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

from sgam import Memory
from sgam.store.postgres import migrate
from sgam.store.postgres.install import with_login
from sgam.store.postgres.migrations import TENANT_TABLES

TENANTS = (1, 4, 16)
BATCH = 1000
SINGLE_WRITES = 1600
READS = 1000
BASE = datetime(2024, 1, 1, tzinfo=UTC)
APP_ROLE = "sgam_bench_app"


def prepare_citus(url: str) -> tuple[str, str]:
    """Install sgam's schema, distributed, in the coordinator's database at ``url`` (an
    owner URL of a database where ``citus`` is created and the workers are added); the
    application role is created on the coordinator, which passes it on to the workers.
    Returns (owner URL, application URL)."""
    with psycopg.connect(url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'bench'").format(sql.Identifier(APP_ROLE)))
    migrate(url, grant_to=[APP_ROLE], distributed=True)
    return url, with_login(url, APP_ROLE, "bench")


def _reset(admin: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("TRUNCATE {}").format(sql.SQL(", ").join(map(sql.Identifier, TENANT_TABLES))))


def _tenant(index: int) -> str:
    return f"tenant{index:02d}"


def _facts(per_tenant: int) -> Iterator[tuple[str, int, datetime]]:
    """(subject, value, valid_from) of one tenant: ten versions of each of its keys, round by round."""
    for version in range(10):
        for key in range(per_tenant // 10):
            yield f"s{key}", version, BASE + timedelta(days=version, seconds=key)


def _ingest(url: str, tenant: str, per_tenant: int) -> int:
    with Memory(url) as memory:
        memory.add_episode(tenant, "bench", BASE, "benchmark source")
        facts = list(_facts(per_tenant))
        for start in range(0, len(facts), BATCH):
            memory.write_many(tenant, [dict(subject=s, attribute="a", value=v, valid_from=f, source="bench")
                                       for s, v, f in facts[start:start + BATCH]])
        return len(facts)


def _writes(url: str, tenant: str, per_tenant: int, count: int) -> int:
    rng = random.Random(tenant)
    with Memory(url) as memory:
        for j in range(count):
            memory.write(tenant, f"s{rng.randrange(per_tenant // 10)}", "a", 100 + j,
                         BASE + timedelta(days=40, seconds=j), "bench")
    return count


def _entry(kind: str, url: str, tenant: str, per_tenant: int, count: int, barrier: Any, results: Any) -> None:
    Memory(url).close()  # the import and the first connection before the clock starts
    barrier.wait()
    start = time.time()
    done = _ingest(url, tenant, per_tenant) if kind == "batch" else _writes(url, tenant, per_tenant, count)
    results.put((start, time.time(), done))


def _parallel(kind: str, url: str, tenants: int, per_tenant: int) -> float:
    """One process per tenant from one barrier; units done per second, all together."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(tenants), context.Queue()
    count = SINGLE_WRITES // tenants
    workers = [context.Process(target=_entry, args=(kind, url, _tenant(t), per_tenant, count, barrier, results))
               for t in range(tenants)]
    for process in workers:
        process.start()
    found = [results.get() for _ in workers]
    for process in workers:
        process.join()
        if process.exitcode:
            raise RuntimeError(f"{kind} worker failed with exit code {process.exitcode}")
    return sum(r[2] for r in found) / (max(r[1] for r in found) - min(r[0] for r in found))


def _reads(url: str, tenants: int, per_tenant: int) -> tuple[float, float]:
    """p50 and p99 (µs) of current-value reads, the tenants asked in turn."""
    rng = random.Random(1)
    samples = []
    with Memory(url) as memory:
        for i in range(READS):
            tenant, key = _tenant(i % tenants), rng.randrange(per_tenant // 10)
            start = time.perf_counter_ns()
            memory.get(tenant, f"s{key}", "a")
            samples.append((time.perf_counter_ns() - start) / 1000)
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49], cuts[98]


def measure(admin: str, app: str, facts: int) -> dict[str, dict[str, float]]:
    """Per tenant count: batch rows/s, one-fact tx/s, read p50/p99 (µs); ``facts`` in all,
    shared by the tenants."""
    figures: dict[str, dict[str, float]] = {}
    for tenants in TENANTS:
        per_tenant = max(10, facts // tenants)
        _reset(admin)
        found = {"batch_rows_per_s": round(_parallel("batch", app, tenants, per_tenant)),
                 "write_tps": round(_parallel("single", app, tenants, per_tenant))}
        p50, p99 = _reads(app, tenants, per_tenant)
        found.update(read_p50_us=round(p50, 1), read_p99_us=round(p99, 1))
        figures[str(tenants)] = found
    return figures


def compare(single: tuple[str, str], citus: tuple[str, str], facts: int) -> dict[str, Any]:
    """Both systems' figures, and Citus's over the single server's of the same run."""
    found = {"single": measure(*single, facts), "citus": measure(*citus, facts)}
    found["citus_vs_single"] = {
        tenants: {measure_: round(found["citus"][tenants][measure_] / value, 3) if value else None
                  for measure_, value in figures.items()}
        for tenants, figures in found["single"].items()}
    found["citus_coordinator"] = urlsplit(citus[0]).netloc.rpartition("@")[2]
    return found


LABELS = (("batch_rows_per_s", "batch ingest, rows/s"), ("write_tps", "one-fact writes, tx/s"),
          ("read_p50_us", "read current, p50 µs"), ("read_p99_us", "read current, p99 µs"))


def print_comparison(found: dict[str, Any]) -> None:
    header = ["measure", "tenants", "single server", "Citus", "Citus ÷ single"]
    table = [header]
    for key, label in LABELS:
        for tenants in found["single"]:
            single, citus = found["single"][tenants][key], found["citus"][tenants][key]
            table.append([label, tenants, f"{single:,}", f"{citus:,}", f"{found['citus_vs_single'][tenants][key]}"])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for index, row in enumerate(table):
        print("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
