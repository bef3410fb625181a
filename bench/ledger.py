"""Ledger benchmark: sgam against the article's reference design, at growing sizes.

Workload: N facts over N/10 keys, ten versions per key with increasing ``valid_from``,
written round by round (every key's first version, then every key's second, ...), and 2%
of the facts arriving out of order (a version written after the next one of its key).
For each size and variant the first N - S facts are bulk-loaded in batches (batch ingest
rate), the last S = min(20k, N/2) are written one fact per transaction (write rate), then
current / ``at`` / ``known_at`` reads of random keys are timed one by one.

Variants: (a) sgam; (b) the reference ``replace_fact`` table (only a partial unique
index on the open fact of a key); (c) the same with a composite index on
``(tenant, subject, attribute, valid_from)``; (d) raw ``executemany`` of the final rows
into (c)'s table, the physical limit. Every variant uses WAL and ``synchronous=NORMAL``.
Each phase of (b) stops after ``--cap`` seconds; the table then shows the N reached.

Peak RSS of the largest ingest is measured in a child process per variant (``--rss``).

    python bench/ledger.py --quick
    python bench/ledger.py --sizes 10000,100000,1000000
    python bench/ledger.py --facts 1000000 --json    # variants a, c, d at one size, as JSON
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sgam import Fact, Memory

TENANT = "bench"
ATTRIBUTES = ("city", "employer", "phone", "plan", "status")
EPISODES = 8
VERSIONS = 10
BATCH = 10_000
SAMPLE = 20_000
READS = 20_000
BASE = datetime(2020, 1, 1, tzinfo=UTC)
STEP = timedelta(days=30)

# ---------------------------------------------------------------------------- workload


@dataclass(frozen=True, slots=True)
class Item:
    """One fact of the workload: version ``j`` of key ``k``."""

    key: int
    version: int


def subject_of(key: int) -> str:
    return f"user{key // len(ATTRIBUTES):07d}"


def attribute_of(key: int) -> str:
    return ATTRIBUTES[key % len(ATTRIBUTES)]


def valid_from(key: int, version: int) -> datetime:
    return BASE + version * STEP + timedelta(seconds=key % 86_400)


def value_of(key: int, version: int) -> str:
    return f"{attribute_of(key)}-{key}-v{version}"


def source_of(key: int, version: int) -> str:
    return f"ep{(key + version) % EPISODES}"


def swapped_at(key: int) -> int | None:
    """A fifth of the keys write one adjacent pair of versions in reverse: 2% of facts."""
    if (key * 2654435761) % 5 == 0:
        return (key // 5) % (VERSIONS - 1)
    return None


def version_in_round(key: int, round_: int) -> int:
    swap = swapped_at(key)
    if swap is not None and round_ in (swap, swap + 1):
        return swap + swap + 1 - round_
    return round_


def workload(n: int) -> Iterator[Item]:
    """The facts in arrival order, generated lazily (no N-sized list in memory)."""
    keys = n // VERSIONS
    for round_ in range(VERSIONS):
        for key in range(keys):
            yield Item(key, version_in_round(key, round_))


def chunks(items: Iterator[Item], size: int, limit: int) -> Iterator[list[Item]]:
    batch: list[Item] = []
    for item in itertools.islice(items, limit):
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def iso(moment: datetime) -> str:
    return moment.isoformat()


# ---------------------------------------------------------------------------- variants


class Variant:
    """One storage design under test; subclasses implement the five operations."""

    name = ""
    capped = False
    has_known_at = True

    def open(self, path: Path) -> None: ...
    def ingest(self, batch: list[Item]) -> None: ...
    def write_one(self, item: Item) -> None: ...
    def read_current(self, key: int) -> str | None: ...
    def read_at(self, key: int, at: datetime) -> str | None: ...
    def read_known_at(self, key: int, known_at: datetime) -> str | None: ...
    def mark(self) -> datetime:
        return datetime.now(UTC)
    def close(self) -> None: ...


class Sgam(Variant):
    name = "(a) sgam"

    def open(self, path: Path) -> None:
        self.mem = Memory(f"sqlite:///{path}")
        for e in range(EPISODES):
            self.mem.add_episode(TENANT, f"ep{e}", BASE, f"episode {e}")

    def ingest(self, batch: list[Item]) -> None:
        self.mem.write_many(TENANT, [
            Fact(subject_of(i.key), attribute_of(i.key), value_of(i.key, i.version),
                 valid_from(i.key, i.version), source_of(i.key, i.version))
            for i in batch
        ])

    def write_one(self, item: Item) -> None:
        k, j = item.key, item.version
        self.mem.write(TENANT, subject_of(k), attribute_of(k), value_of(k, j), valid_from(k, j), source_of(k, j))

    def read_current(self, key: int) -> str | None:
        found = self.mem.get(TENANT, subject_of(key), attribute_of(key))
        return None if found is None else str(found.value)

    def read_at(self, key: int, at: datetime) -> str | None:
        found = self.mem.get(TENANT, subject_of(key), attribute_of(key), at=at)
        return None if found is None else str(found.value)

    def read_known_at(self, key: int, known_at: datetime) -> str | None:
        found = self.mem.get(TENANT, subject_of(key), attribute_of(key), known_at=known_at)
        return None if found is None else str(found.value)

    def close(self) -> None:
        self.mem.close()


class Reference(Variant):
    """The article's design, re-typed from its description."""

    name = "(b) reference"
    capped = True
    has_known_at = False
    indexed = False

    def open(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute(
            "CREATE TABLE facts (id INTEGER PRIMARY KEY, tenant TEXT, subject TEXT, attribute TEXT, "
            "value TEXT, valid_from TEXT, valid_to TEXT, source TEXT)"
        )
        self.conn.execute(
            "CREATE UNIQUE INDEX facts_open ON facts (tenant, subject, attribute) WHERE valid_to IS NULL"
        )
        if self.indexed:
            self.conn.execute("CREATE INDEX facts_by_key ON facts (tenant, subject, attribute, valid_from)")

    def _replace(self, tenant: str, subject: str, attribute: str, value: str, start: str, source: str) -> None:
        self.conn.execute(
            "UPDATE facts SET valid_to = ? WHERE tenant = ? AND subject = ? AND attribute = ? "
            "AND valid_to IS NULL",
            (start, tenant, subject, attribute),
        )
        self.conn.execute(
            "INSERT INTO facts (tenant, subject, attribute, value, valid_from, valid_to, source) "
            "VALUES (?, ?, ?, ?, ?, NULL, ?)",
            (tenant, subject, attribute, value, start, source),
        )

    def replace_fact(self, tenant: str, subject: str, attribute: str, value: str, start: str, source: str) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self._replace(tenant, subject, attribute, value, start, source)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def ingest(self, batch: list[Item]) -> None:
        # The reference has no batch API; its fairest batch is replace_fact's statements
        # for every row inside one transaction.
        self.conn.execute("BEGIN IMMEDIATE")
        for i in batch:
            k, j = i.key, i.version
            self._replace(TENANT, subject_of(k), attribute_of(k), value_of(k, j),
                          iso(valid_from(k, j)), source_of(k, j))
        self.conn.execute("COMMIT")

    def write_one(self, item: Item) -> None:
        k, j = item.key, item.version
        self.replace_fact(TENANT, subject_of(k), attribute_of(k), value_of(k, j),
                          iso(valid_from(k, j)), source_of(k, j))

    def read_current(self, key: int) -> str | None:
        row = self.conn.execute(
            "SELECT id, value, valid_from, valid_to, source FROM facts "
            "WHERE tenant = ? AND subject = ? AND attribute = ? AND valid_to IS NULL",
            (TENANT, subject_of(key), attribute_of(key)),
        ).fetchone()
        return None if row is None else str(row[1])

    def read_at(self, key: int, at: datetime) -> str | None:
        moment = iso(at)
        row = self.conn.execute(
            "SELECT id, value, valid_from, valid_to, source FROM facts "
            "WHERE tenant = ? AND subject = ? AND attribute = ? AND valid_from <= ? "
            "AND (valid_to IS NULL OR valid_to > ?) ORDER BY valid_from DESC LIMIT 1",
            (TENANT, subject_of(key), attribute_of(key), moment, moment),
        ).fetchone()
        return None if row is None else str(row[1])

    def close(self) -> None:
        self.conn.close()


class IndexedReference(Reference):
    name = "(c) ref+index"
    capped = False
    indexed = True


class RawInsert(IndexedReference):
    """``executemany`` of the final rows (valid_to precomputed) into (c)'s table."""

    name = "(d) raw insert"

    @staticmethod
    def row(item: Item) -> tuple[str, str, str, str, str, str | None, str]:
        k, j = item.key, item.version
        end = None if j == VERSIONS - 1 else iso(valid_from(k, j + 1))
        return (TENANT, subject_of(k), attribute_of(k), value_of(k, j), iso(valid_from(k, j)), end,
                source_of(k, j))

    def ingest(self, batch: list[Item]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(
            "INSERT INTO facts (tenant, subject, attribute, value, valid_from, valid_to, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [self.row(i) for i in batch],
        )
        self.conn.execute("COMMIT")

    def write_one(self, item: Item) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "INSERT INTO facts (tenant, subject, attribute, value, valid_from, valid_to, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            self.row(item),
        )
        self.conn.execute("COMMIT")


def frames_per_write(conn: sqlite3.Connection, path: Path, write: Callable[[Item], None], items: list[Item]) -> float:
    """WAL bytes ``write`` adds per one-fact write, in frames (pages), with automatic
    checkpoints off."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    wal = Path(f"{path}-wal")
    before = wal.stat().st_size if wal.exists() else 0
    for item in items:
        write(item)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    return (wal.stat().st_size - before) / (page + 24) / len(items)


VARIANTS: dict[str, type[Variant]] = {
    "a": Sgam, "b": Reference, "c": IndexedReference, "d": RawInsert,
}

# ---------------------------------------------------------------------------- measuring


@dataclass
class Result:
    variant: str
    n: int
    n_reached: int = 0
    ingest_rate: float = 0.0
    write_rate: float = 0.0
    ingest_cpu_rate: float = 0.0
    write_cpu_rate: float = 0.0
    writes_done: int = 0
    reads: dict[str, tuple[float, float, int, int]] = field(default_factory=dict)
    capped: list[str] = field(default_factory=list)


def expected_value(key: int, at: datetime) -> str | None:
    """The value a correct ledger holds for ``key`` at valid time ``at`` once all is written."""
    best: int | None = None
    for version in range(VERSIONS):
        if valid_from(key, version) <= at:
            best = version
    return None if best is None else value_of(key, best)


def percentile(samples: list[int], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def run_phase(cap: float | None, steps: Iterator[Callable[[], int]]) -> tuple[int, float, bool, float]:
    """Run steps (each returns how many facts it handled) until done or past the cap;
    returns the facts, wall seconds, whether the cap was hit and CPU seconds (which the
    neighbours' load disturbs less; SQLite works in this process, so it counts too)."""
    done, start, cpu = 0, time.perf_counter_ns(), time.process_time()
    for step in steps:
        done += step()
        if cap is not None and (time.perf_counter_ns() - start) / 1e9 > cap:
            return done, (time.perf_counter_ns() - start) / 1e9, True, time.process_time() - cpu
    return done, (time.perf_counter_ns() - start) / 1e9, False, time.process_time() - cpu


def load(variant: Variant, n: int, cap: float | None, result: Result) -> datetime:
    """Bulk-load then write one by one; returns a transaction time from mid-ingest."""
    sample = min(SAMPLE, n // 2)
    stream = workload(n)
    # the mark goes before the middle batch (batches are generated lazily: no N-sized
    # list); with a single batch, after it, so that known_at reads find what it wrote
    middle = max(1, -(-(n - sample) // BATCH) // 2)
    marks: list[datetime] = []

    def ingest_steps() -> Iterator[Callable[[], int]]:
        for index, batch in enumerate(chunks(stream, BATCH, n - sample)):
            if index == middle:
                marks.append(variant.mark())
            yield lambda batch=batch: (variant.ingest(batch), len(batch))[1]

    done, seconds, hit, cpu = run_phase(cap, ingest_steps())
    result.ingest_rate = done / seconds if seconds else 0.0
    result.ingest_cpu_rate = done / cpu if cpu else 0.0
    result.n_reached = done
    if hit:  # the one-fact writes still run, from the N reached
        result.capped.append("ingest")
    if not marks:
        marks.append(variant.mark())

    def write_steps() -> Iterator[Callable[[], int]]:
        for item in stream:
            yield lambda item=item: (variant.write_one(item), 1)[1]

    done, seconds, hit, cpu = run_phase(cap, write_steps())
    result.write_rate = done / seconds if seconds else 0.0
    result.write_cpu_rate = done / cpu if cpu else 0.0
    result.writes_done = done
    result.n_reached += done
    if hit:
        result.capped.append("write")
    return marks[0]


def time_reads(
    cap: float | None, keys: list[int], read: Callable[[int], str | None],
    expect: Callable[[int], str | None] | None,
) -> tuple[float, float, int, int]:
    samples: list[int] = []
    wrong = 0
    clock = time.perf_counter_ns
    started = clock()
    for key in keys:
        t0 = clock()
        got = read(key)
        samples.append(clock() - t0)
        if expect is not None and got != expect(key):
            wrong += 1
        if cap is not None and (clock() - started) / 1e9 > cap:
            break
    return percentile(samples, 0.5), percentile(samples, 0.99), len(samples), wrong


def measure(letter: str, n: int, cap: float | None, workdir: Path) -> Result:
    variant = VARIANTS[letter]()
    result = Result(variant.name, n)
    path = workdir / f"{letter}-{n}.db"
    variant.open(path)
    phase_cap = cap if variant.capped else None
    known_mark = load(variant, n, phase_cap, result)
    complete = result.n_reached == n
    rng = random.Random(n)
    keys = [rng.randrange(max(1, result.n_reached // VERSIONS)) for _ in range(READS)]
    ats = {k: valid_from(k, rng.randrange(VERSIONS)) + timedelta(days=7) for k in keys}
    gc.collect()
    result.reads["current"] = time_reads(
        phase_cap, keys, variant.read_current,
        (lambda k: value_of(k, VERSIONS - 1)) if complete else None,
    )
    result.reads["at"] = time_reads(
        phase_cap, keys, lambda k: variant.read_at(k, ats[k]),
        (lambda k: expected_value(k, ats[k])) if complete else None,
    )
    if variant.has_known_at:
        result.reads["known_at"] = time_reads(
            phase_cap, keys, lambda k: variant.read_known_at(k, known_mark), None
        )
    variant.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return result


def peak_rss_mb() -> float:
    """This process's peak resident set. ``VmHWM`` where there is /proc: ``ru_maxrss`` of a
    child on Linux starts from its parent's size at fork, which would blame the parent."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_child(letter: str, n: int, cap: float | None) -> dict[str, float]:
    """Run only the ingest of one variant and report its peak resident memory."""
    before = peak_rss_mb()
    with tempfile.TemporaryDirectory(dir=os.environ.get("SGAM_BENCH_DIR")) as tmp:
        variant = VARIANTS[letter]()
        variant.open(Path(tmp) / "rss.db")
        result = Result(variant.name, n)
        load(variant, n, cap if variant.capped else None, result)
        peak = peak_rss_mb()
        variant.close()
    return {"before_mb": before, "peak_mb": peak, "n_reached": result.n_reached}


# ---------------------------------------------------------------------------- report


def fmt_rate(value: float) -> str:
    return f"{value:,.0f}" if value else "-"


def fmt_ratio(small: float, large: float) -> str:
    return f"{large / small:.2f}x" if small and large else "-"


def report(results: list[Result], sizes: list[int], rss: dict[str, dict[str, float]]) -> str:
    lines: list[str] = []
    head = f"{'variant':<15} {'metric':<22}" + "".join(f"{n:>13,}" for n in sizes) + f"{'ratio':>9}"
    lines.append(head)
    lines.append("-" * len(head))
    by_variant: dict[str, dict[int, Result]] = {}
    for r in results:
        by_variant.setdefault(r.variant, {})[r.n] = r
    for name, per_size in by_variant.items():
        rows: list[tuple[str, list[float | None], bool]] = [
            ("write tx/s", [per_size[n].write_rate if n in per_size else None for n in sizes], False),
            ("batch ingest rows/s", [per_size[n].ingest_rate if n in per_size else None for n in sizes], False),
        ]
        for kind in ("current", "at", "known_at"):
            for label, pick in (("p50", 0), ("p99", 1)):
                values: list[float | None] = []
                for n in sizes:
                    r = per_size.get(n)
                    values.append(r.reads[kind][pick] if r and kind in r.reads else None)
                rows.append((f"read {kind} {label} us", values, True))
        for label, values, is_time in rows:
            cells = []
            for v in values:
                if v is None:
                    cells.append(f"{'n/a':>13}")
                elif is_time:
                    cells.append(f"{v:>13,.1f}")
                else:
                    cells.append(f"{fmt_rate(v):>13}")
            first, last = values[0], values[-1]
            ratio = fmt_ratio(first, last) if first is not None and last is not None else "n/a"
            lines.append(f"{name:<15} {label:<22}" + "".join(cells) + f"{ratio:>9}")
        notes = []
        for n in sizes:
            r = per_size.get(n)
            if r is None:
                continue
            wrong = {k: v[3] for k, v in r.reads.items() if v[3]}
            counts = {k: v[2] for k, v in r.reads.items()}
            if r.capped or r.n_reached != n or any(c < READS for c in counts.values()):
                notes.append(f"N={n:,}: reached {r.n_reached:,} facts; capped phases {r.capped or '-'}; "
                             f"reads timed {counts}")
            if wrong:
                notes.append(f"N={n:,}: wrong answers {wrong} of the reads")
        if name in rss:
            m = rss[name]
            notes.append(f"peak RSS of the {int(m['n_reached']):,}-fact ingest: {m['peak_mb']:.0f} MB "
                         f"(process at start {m['before_mb']:.0f} MB)")
        for note in notes:
            lines.append(f"{'':<15} * {note}")
        lines.append("")
    return "\n".join(lines)


def machine(load_at_start: float) -> dict[str, object]:
    """Where and under what load the figures were taken: absolute numbers mean little
    without it, ratios of variants measured in one run mean more."""
    return {
        "when": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "sqlite": sqlite3.sqlite_version,
        "python": sys.version.split()[0], "cpus": os.cpu_count(),
        "load_average_start": round(load_at_start, 2), "load_average_end": round(os.getloadavg()[0], 2),
    }


def size_figures(per_variant: dict[str, Result], rss: dict[str, dict[str, float]]) -> dict[str, object]:
    """The figures of one size: sgam's, the references' of the same run, and their ratios."""
    figures: dict[str, object] = {}
    sgam, ref, raw = (per_variant.get(VARIANTS[k].name) for k in "acd")
    if sgam is not None:
        figures["write_tps"] = round(sgam.write_rate)
        figures["batch_rows_per_s"] = round(sgam.ingest_rate)
        figures["write_per_cpu_s"] = round(sgam.write_cpu_rate)
        figures["batch_rows_per_cpu_s"] = round(sgam.ingest_cpu_rate)
        figures["read_p50_us"] = sgam.reads["current"][0]
        figures["read_p99_us"] = sgam.reads["current"][1]
        for kind, (p50, p99, _, wrong) in sgam.reads.items():
            figures[f"read_{kind}_p50_us"] = p50
            figures[f"read_{kind}_p99_us"] = p99
            figures[f"read_{kind}_wrong"] = wrong
        if Sgam.name in rss:
            figures["peak_rss_mb"] = round(rss[Sgam.name]["peak_mb"], 1)
    if ref is not None:
        figures["reference_write_tps"] = round(ref.write_rate)
        figures["reference_write_per_cpu_s"] = round(ref.write_cpu_rate)
        figures["reference_batch_rows_per_s"] = round(ref.ingest_rate)
        figures["reference_read_p50_us"] = ref.reads["current"][0]
        figures["reference_wrong_reads"] = sum(v[3] for v in ref.reads.values())
    if raw is not None:
        figures["raw_insert_rows_per_s"] = round(raw.ingest_rate)
        figures["raw_insert_rows_per_cpu_s"] = round(raw.ingest_cpu_rate)
        figures["raw_insert_write_tps"] = round(raw.write_rate)
    if sgam is not None and ref is not None and ref.write_rate:
        figures["write_vs_reference"] = round(sgam.write_rate / ref.write_rate, 3)
    if sgam is not None and raw is not None and raw.ingest_rate:
        figures["batch_vs_raw_insert"] = round(sgam.ingest_rate / raw.ingest_rate, 3)
    return figures


def summary(
    results: list[Result], sizes: list[int], rss: dict[str, dict[str, float]], load_at_start: float
) -> dict[str, object]:
    """``--json``: the largest size's figures at the top level, every size under ``sizes``
    (peak RSS belongs to the largest ingest only)."""
    by_size: dict[int, dict[str, Result]] = {}
    for r in results:
        by_size.setdefault(r.n, {})[r.variant] = r
    figures = {str(n): size_figures(by_size.get(n, {}), rss if n == max(sizes) else {}) for n in sizes}
    return {"facts": max(sizes), **figures[str(max(sizes))], "sizes": figures, "machine": machine(load_at_start)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--facts", type=int, help="one size N (default variants: acd)")
    parser.add_argument("--json", action="store_true", help="print figures as one JSON object")
    parser.add_argument("--quick", action="store_true", help="10k facts only")
    parser.add_argument("--variants", default=None, help="letters of the variants (default abcd)")
    parser.add_argument("--cap", type=float, default=20.0, help="seconds per phase of (b)")
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-memory children")
    parser.add_argument("--dir", default=None, help="where the database files go")
    parser.add_argument("--rss-child", nargs=2, metavar=("VARIANT", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        print(json.dumps(rss_child(args.rss_child[0], int(args.rss_child[1]), args.cap)))
        return
    if args.facts:
        sizes = [args.facts]
    else:
        sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    args.variants = args.variants or ("acd" if args.facts else "abcd")
    load_at_start = os.getloadavg()[0]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for n in sizes:
            for letter in args.variants:
                started = time.perf_counter()
                results.append(measure(letter, n, args.cap, Path(tmp)))
                print(f"# {VARIANTS[letter].name} N={n:,} done in {time.perf_counter() - started:.1f} s",
                      file=sys.stderr, flush=True)
    rss: dict[str, dict[str, float]] = {}
    if not args.no_rss:
        env = dict(os.environ, SGAM_BENCH_DIR=args.dir or tempfile.gettempdir())
        for letter in args.variants:
            out = subprocess.run(
                [sys.executable, __file__, "--rss-child", letter, str(max(sizes)), "--cap", str(args.cap)],
                check=True, capture_output=True, text=True, env=env,
            ).stdout
            rss[VARIANTS[letter].name] = json.loads(out)
    if args.json:
        print(json.dumps(summary(results, sizes, rss, load_at_start), indent=2))
        return
    print(f"sgam ledger benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, SQLite "
          f"{sqlite3.sqlite_version}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average at start {load_at_start:.1f}, at end {os.getloadavg()[0]:.1f}")
    print(f"write tx/s: last {SAMPLE:,} facts (N/2 at 10k) one per transaction after bulk-loading the rest; "
          f"batches of {BATCH:,}; {READS:,} reads per kind")
    print()
    print(report(results, sizes, rss))


if __name__ == "__main__":
    main()
