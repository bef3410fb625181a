"""Erasure benchmark: what one ``Memory.forget_episode`` costs as the store grows.

    .venv/bin/python bench/erasure.py [--sizes 100000,1000000] [--erasures 30] [--dir PATH] [--json]

Each size builds a fresh SQLite file through the batch paths: ``Memory.add_episodes`` in
batches of 10,000 and ``Memory.write_many`` for the facts. Half of the episodes belong to
the tenant that erases, half to a neighbour tenant of the same file; every tenth episode
sources a fact of its own key (so an erasure also re-derives a key and removes it from the
key index). Episodes are 12-30 pseudo-words drawn with a Zipf law, so the full-text index
sees realistic term statistics, plus one marker word of their own.

Then ``--erasures`` episodes of the erasing tenant, picked at random (a tenth of them with a
fact), are forgotten one after the other, each timed alone: p50, p99 and max by size, and
``growth``, the largest size's p50 over the smallest's. Before them, ``SEARCHES`` keyword
searches of the erasing tenant (3-6 words drawn as the episodes', limit 10) are timed:
``search_p50_ms`` shows what the index's layout costs the reads. Each erasure must report no
residue. Afterwards ``Memory.residue`` looks for every erased marker (the tenant's rows
and its own full-text partitions; with a neighbour in the file, the shared places are
named unscanned), and the database and WAL bytes are searched for each marker's tail once
the store is closed (``markers_in_file_bytes``); both counts must be 0.
``neighbour_partitions_untouched`` says whether the neighbour's own full-text partitions
(its rows past the first ones, which small tenants share) are byte for byte as they were
before the erasures (null for a schema without partitions).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sgam import Memory

TENANT = "erasing"
NEIGHBOUR = "neighbour"
BATCH = 10_000
FACT_EVERY = 10
SEARCHES = 200
START = datetime(2026, 1, 1, tzinfo=UTC)
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Texts:
    """Zipf-distributed sentences over a fixed vocabulary, each with its own marker."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(20_000, self.rng)
        weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(self.words))]
        total = sum(weights)
        self.cumulative = []
        running = 0.0
        for weight in weights:
            running += weight / total
            self.cumulative.append(running)

    def sentence(self, marker: str) -> str:
        count = self.rng.randint(12, 30)
        picked = self.rng.choices(self.words, cum_weights=self.cumulative, k=count)
        return " ".join(picked) + f" {marker}"


def marker(tenant: str, n: int) -> str:
    """Unique and with a tail of its own: full-text indexes store a term after the prefix
    it shares with the term before it, so the files are searched for the tail."""
    digest = hashlib.blake2b(f"{tenant}/{n}".encode(), digest_size=6).hexdigest()
    return f"zqm{digest}q"


def build(memory: Memory, size: int, texts: Texts) -> None:
    """``size`` episodes, half per tenant, interleaved batch by batch as tenants share a file."""
    per_tenant = size // 2
    for start in range(0, per_tenant, BATCH):
        for tenant in (TENANT, NEIGHBOUR):
            stop = min(start + BATCH, per_tenant)
            memory.add_episodes(tenant, [
                {"id": f"ep{n}", "at": START + timedelta(seconds=n), "text": texts.sentence(marker(tenant, n)),
                 "speaker": "user" if n % 2 else "assistant"}
                for n in range(start, stop)])
            memory.write_many(tenant, [
                {"subject": f"person{n}", "attribute": "badge", "value": marker(tenant, n),
                 "valid_from": START + timedelta(seconds=n), "source": f"ep{n}"}
                for n in range(start, stop) if n % FACT_EVERY == 0])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_size(size: int, erasures: int, folder: Path, seed: int) -> dict[str, Any]:
    path = folder / f"erasure-{size}.db"
    texts = Texts(seed)
    rng = random.Random(seed + size)
    with Memory(f"sqlite:///{path}") as memory:
        began = time.perf_counter()
        build(memory, size, texts)
        build_s = time.perf_counter() - began
        per_tenant = size // 2
        searches = []
        for _ in range(SEARCHES):
            question = " ".join(texts.rng.choices(texts.words, cum_weights=texts.cumulative, k=texts.rng.randint(3, 6)))
            began = time.perf_counter()
            memory.search(TENANT, question, limit=10)
            searches.append(time.perf_counter() - began)
        with_fact = [n for n in range(per_tenant) if n % FACT_EVERY == 0]
        without = [n for n in range(per_tenant) if n % FACT_EVERY]
        picked = rng.sample(with_fact, max(1, erasures // 10)) + rng.sample(without, erasures - max(1, erasures // 10))
        rng.shuffle(picked)
        neighbour_before = _own_partitions(path, NEIGHBOUR)
        timings = []
        for n in picked:
            began = time.perf_counter()
            result = memory.forget_episode(TENANT, f"ep{n}")
            timings.append(time.perf_counter() - began)
            assert result.episodes_removed == 1 and result.residue is None, result
        found = sum(bool(memory.residue(TENANT, marker(TENANT, n)).found) for n in picked)
        neighbour_intact = all(memory.episode(NEIGHBOUR, f"ep{n}") is not None for n in picked)
        neighbour_after = _own_partitions(path, NEIGHBOUR)
        db_bytes = path.stat().st_size
    files_found = _file_hits(path, [marker(TENANT, n) for n in picked])
    return {
        "episodes": size, "build_s": round(build_s, 1), "db_mb": round(db_bytes / 2**20, 1),
        "forget_p50_s": round(statistics.median(timings), 4), "forget_p99_s": round(percentile(timings, 0.99), 4),
        "forget_max_s": round(max(timings), 4), "erasures": len(timings),
        "search_p50_ms": round(statistics.median(searches) * 1000, 2),
        "search_p99_ms": round(percentile(searches, 0.99) * 1000, 2),
        "markers_found_by_residue": found, "markers_in_file_bytes": files_found,
        "neighbour_intact": neighbour_intact,
        "neighbour_partitions_untouched": None if neighbour_before is None else neighbour_before == neighbour_after,
    }


def _own_partitions(path: Path, tenant: str) -> dict[int, str] | None:
    """The tenant's own full-text partitions, each as a digest of its segments (None for a
    schema without partitions): equal before and after means no erasure rewrote them."""
    with closing(sqlite3.connect(path)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'full_text_parts'").fetchone():
            return None
        found = {}
        for part, family in conn.execute("SELECT part, family FROM full_text_parts WHERE tenant = ?", (tenant,)):
            table = ("episodes" if family == "episodes" else "ledger_keys") + f"_fts_{part}_data"
            blocks = conn.execute(f"SELECT id, block FROM {table} ORDER BY id").fetchall()
            found[part] = hashlib.sha256(repr(blocks).encode()).hexdigest()
        return found


def _file_hits(path: Path, needles: list[str]) -> int:
    """Erased markers in the database and WAL bytes after the store is closed (its WAL
    checkpointed): the files as a thief would copy them."""
    encoded = [needle[-9:].encode() for needle in needles]
    total = 0
    for file in (path, Path(f"{path}-wal")):
        if file.is_file():
            data = file.read_bytes()
            total += sum(data.count(needle) for needle in encoded)
    return total


def machine() -> dict[str, Any]:
    return {"time": datetime.now(UTC).isoformat(timespec="seconds"), "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version, "cpus": os.cpu_count(), "load": list(os.getloadavg())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="store sizes in episodes, comma-separated")
    parser.add_argument("--erasures", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", help="where the database files go (default: a temporary folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    start = machine()
    results = []
    with tempfile.TemporaryDirectory(prefix="sgam-erasure-", dir=args.dir) as folder:
        for size in sizes:
            results.append(run_size(size, args.erasures, Path(folder), args.seed))
            if not args.json:
                print(json.dumps(results[-1]), file=sys.stderr)
    growth = results[-1]["forget_p50_s"] / results[0]["forget_p50_s"] if results[0]["forget_p50_s"] else None
    report = {"sizes": results, "growth": None if growth is None else round(growth, 2),
              "machine": {"start": start, "end_load": list(os.getloadavg())}}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'episodes':>10} {'build s':>8} {'db MB':>7} {'forget p50 s':>13} {'p99 s':>8} {'search p50 ms':>14} "
          f"{'residue':>8}")
    for row in results:
        print(f"{row['episodes']:>10} {row['build_s']:>8} {row['db_mb']:>7} {row['forget_p50_s']:>13} "
              f"{row['forget_p99_s']:>8} {row['search_p50_ms']:>14} "
              f"{row['markers_found_by_residue'] + row['markers_in_file_bytes']:>8}")
    print(f"growth {sizes[0]} -> {sizes[-1]}: {report['growth']}x")


if __name__ == "__main__":
    main()
