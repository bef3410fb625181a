"""Where a one-fact SQLite write's CPU goes, and what one row per write would save.

A store is bulk-loaded with ``ledger.py``'s workload; then, in one process and in
alternating chunks so that load on the machine falls on all alike, the same kind of
write (an append after the key's last start) is made four ways:

- **sgam**: ``Memory.write``, the whole path (validation, planning, caches, the record);
- **statements, two rows**: only the statements that write sends, on a copy of the store
  (``BEGIN IMMEDIATE``, the data-version check, the key-state lookup, the draw of the
  operation's number from the tenant's counter, the operation insert with its key trigger,
  the version insert with its triggers, the full-text queue probe, ``COMMIT``);
- **statements, one row**: the same with the version row carrying its operation, the
  layout one row per ordinary write would have (the operation insert gone, its key trigger
  on the version table, an ``expires_at`` column and a by-source index on versions, the
  sequence number drawn in memory);
- **indexed reference**: variant (c) of ``ledger.py``, ``replace_fact``.

Printed: CPU microseconds per write for each, the WAL frames (pages) each adds per write
with automatic checkpoints off, and the same-run ratios reference ÷ each. The gap between
*sgam* and *statements, two rows* is Python; the gap between the two statement layouts is
what merging the operation into its version saves.

Batches the same way, on further copies: ``Memory.write_many`` of 2,000 appends, against
the batch's inserts alone (``executemany`` of the operations and of the versions, or of
the versions carrying their operations) and ``ledger.py``'s raw indexed insert (d); CPU
microseconds per row and raw insert ÷ each.

    python bench/write_budget.py --facts 100000
    python bench/write_budget.py --facts 1000000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import ledger as workload  # noqa: E402

from sgam._core.time import to_micros  # noqa: E402
from sgam.store._sql.counters import DRAW  # noqa: E402  (the operation number, drawn from the tenant's counter)
from sgam.store._sql.ledger import OPERATION_FIELDS  # noqa: E402
from sgam.store.sqlite.backend import _KEY_STATE as KEY_STATE  # noqa: E402  (the very statement a write sends)
from sgam.store.sqlite.backend import _QUEUED as QUEUED  # noqa: E402  (the full-text queue probe before COMMIT)

WRITES = 8_000
CHUNK = 1_000
FRAME_WRITES = 2_000
INSERT_OPERATION = (f"INSERT INTO operations ({OPERATION_FIELDS}, seq) "
                    "VALUES (?, ?, ?, 'write', ?, ?, ?, ?, 'fact', 1.0, 0, NULL, ?)")
VERSION_COLUMNS = (
    "assertion_id, tenant, subject, attribute, value, memory_type, valid_from, valid_to, recorded_from, recorded_to, "
    "source, confidence, schema_version, supersedes, origin, closed_by"
)
INSERT_VERSION = f"INSERT INTO assertions ({VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'fact', ?, NULL, ?, NULL, ?, " \
                 "1.0, 0, NULL, 'write', NULL)"
INSERT_CARRIER = f"INSERT INTO assertions ({VERSION_COLUMNS}, expires_at) VALUES (?, ?, ?, ?, ?, 'fact', ?, NULL, " \
                 "?, NULL, ?, 1.0, 0, NULL, 'write', NULL, NULL)"
ONE_ROW_LAYOUT = (
    "DROP TRIGGER operations_key_insert",
    "DROP TRIGGER IF EXISTS assertions_key_insert",  # the store lists keys by versions already
    "CREATE TRIGGER assertions_key_insert AFTER INSERT ON assertions BEGIN INSERT OR IGNORE INTO ledger_keys "
    "(tenant, subject, attribute) VALUES (NEW.tenant, NEW.subject, NEW.attribute); END",
    "ALTER TABLE assertions ADD COLUMN expires_at INTEGER",
    "CREATE INDEX assertions_by_source ON assertions (tenant, source)",
)


BATCH = 2_000


class Statements:
    """A write's statements on a copy of the store, in either layout."""

    def __init__(self, path: Path, *, one_row: bool) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.one_row = one_row
        if one_row:
            for statement in ONE_ROW_LAYOUT:
                self.conn.execute(statement)
        self.seq = int(self.conn.execute("SELECT max(seq) FROM operations").fetchone()[0])
        self.clock = int(self.conn.execute("SELECT max(recorded_at) FROM operations").fetchone()[0])

    def write_one(self, item: workload.Item) -> None:
        execute = self.conn.execute
        subject, attribute = workload.subject_of(item.key), workload.attribute_of(item.key)
        start = to_micros(workload.valid_from(item.key, item.version))
        value = json.dumps(workload.value_of(item.key, item.version))
        source = workload.source_of(item.key, item.version)
        self.clock += 1
        key = (workload.TENANT, subject, attribute)
        execute("BEGIN IMMEDIATE")
        execute("PRAGMA data_version").fetchone()
        execute(KEY_STATE, (*key, start, *key, start, *key)).fetchall()
        if self.one_row:
            self.seq += 1
            execute(INSERT_CARRIER, (self.seq, *key, value, start, self.clock, source))
        else:
            seq = execute(DRAW, (workload.TENANT, "operations", 1)).fetchone()[0]
            execute(INSERT_OPERATION, (*key, start, value, source, self.clock, seq))
            execute(INSERT_VERSION, (seq, *key, value, start, self.clock, source))
        execute(QUEUED).fetchone()
        execute("COMMIT")

    def ingest(self, batch: list[workload.Item]) -> None:
        """The inserts of a batch of appends, without its lookups."""
        rows = []
        for item in batch:
            self.clock += 1
            rows.append((workload.TENANT, workload.subject_of(item.key), workload.attribute_of(item.key),
                         json.dumps(workload.value_of(item.key, item.version)),
                         to_micros(workload.valid_from(item.key, item.version)),
                         workload.source_of(item.key, item.version), self.clock))
        self.conn.execute("BEGIN IMMEDIATE")
        if self.one_row:
            first = self.seq + 1
            self.seq += len(rows)
            self.conn.executemany(INSERT_CARRIER, [
                (first + i, tenant, subject, attribute, value, start, clock, source)
                for i, (tenant, subject, attribute, value, start, source, clock) in enumerate(rows)])
        else:
            first = int(self.conn.execute(DRAW, (workload.TENANT, "operations", len(rows))).fetchone()[0]) \
                - len(rows) + 1
            self.conn.executemany(INSERT_OPERATION, [
                (tenant, subject, attribute, start, value, source, clock, first + i)
                for i, (tenant, subject, attribute, value, start, source, clock) in enumerate(rows)])
            self.conn.executemany(INSERT_VERSION, [
                (first + i, tenant, subject, attribute, value, start, clock, source)
                for i, (tenant, subject, attribute, value, start, source, clock) in enumerate(rows)])
        self.conn.execute(QUEUED).fetchone()
        self.conn.execute("COMMIT")


def per_row_cpu(ingest: dict[str, Callable[[list[workload.Item]], None]],
                items: list[workload.Item]) -> dict[str, float]:
    """CPU microseconds per row of each way of ingesting, batches alternating."""
    cpu: dict[str, list[float]] = {name: [] for name in ingest}
    for start in range(0, len(items), BATCH):
        batch = items[start: start + BATCH]
        for name, call in ingest.items():
            began = time.process_time()
            call(batch)
            cpu[name].append((time.process_time() - began) / len(batch) * 1e6)
    return {name: round(statistics.median(values), 1) for name, values in cpu.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = args.facts
    if n < 10 * (WRITES + FRAME_WRITES):
        parser.error(f"--facts must be at least {10 * (WRITES + FRAME_WRITES):,}")
    # The timed writes are last-round versions of keys: appends after each key's last start
    # (a fifth of the keys write their last two versions in reverse; those are left out).
    items = list(workload.workload(n))
    bulk = items[: n - WRITES - FRAME_WRITES]
    tail = [item for item in items[n - WRITES - FRAME_WRITES:] if item.version == workload.VERSIONS - 1]
    timed, counted = tail[: len(tail) * 4 // 5], tail[len(tail) * 4 // 5:]
    load_at_start = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="sgam-budget-"))
    loaded = workdir / "loaded.db"
    store = workload.Sgam()
    store.open(loaded)
    for chunk in workload.chunks(iter(bulk), workload.BATCH, len(bulk)):
        store.ingest(chunk)
    store.close()
    print(f"# {len(bulk):,} facts loaded", file=sys.stderr)
    paths = {name: workdir / f"{name}.db" for name in
             ("sgam", "two rows", "one row", "batch sgam", "batch two rows", "batch one row")}
    for path in paths.values():
        shutil.copy(loaded, path)
    sgam = workload.Sgam()
    sgam.mem = workload.Memory(f"sqlite:///{paths['sgam']}")
    writers: dict[str, tuple[Callable[[workload.Item], None], sqlite3.Connection, Path]] = {
        "sgam": (sgam.write_one, sgam.mem.ledger.backend._conn, paths["sgam"]),  # type: ignore[attr-defined]
    }
    for name, one_row in (("two rows", False), ("one row", True)):
        statements = Statements(paths[name], one_row=one_row)
        writers[f"statements, {name}"] = (statements.write_one, statements.conn, paths[name])
    reference = workload.IndexedReference()
    reference.open(workdir / "reference.db")
    for chunk in workload.chunks(iter(bulk), workload.BATCH, len(bulk)):
        reference.ingest(chunk)
    writers["indexed reference"] = (reference.write_one, reference.conn, workdir / "reference.db")
    cpu: dict[str, list[float]] = {name: [] for name in writers}
    for start in range(0, len(timed), CHUNK):
        chunk = timed[start: start + CHUNK]
        for name, (write, _, _) in writers.items():
            began = time.process_time()
            for item in chunk:
                write(item)
            cpu[name].append((time.process_time() - began) / len(chunk) * 1e6)
    figures: dict[str, dict[str, float]] = {}
    for name, (write, conn, path) in writers.items():
        figures[name] = {"cpu_us_per_write": round(statistics.median(cpu[name]), 1),
                         "wal_frames_per_write": round(workload.frames_per_write(conn, path, write, counted), 2)}
    reference_cpu = figures["indexed reference"]["cpu_us_per_write"]
    for values in figures.values():
        values["reference_vs_this"] = round(reference_cpu / values["cpu_us_per_write"], 3)
    sgam.close()
    reference.close()
    batches = batch_budget(paths, bulk, timed + counted, workdir)
    shutil.rmtree(workdir)
    report = {"facts": n, "writes": figures, "batches": batches, "machine": workload.machine(load_at_start)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'one-fact writes':22s} {'CPU us/write':>13s} {'WAL frames':>11s} {'reference ÷ this':>17s}")
    for name, values in figures.items():
        print(f"{name:22s} {values['cpu_us_per_write']:13.1f} {values['wal_frames_per_write']:11.2f} "
              f"{values['reference_vs_this']:17.3f}")
    print(f"{'batches':22s} {'CPU us/row':>13s} {'':>11s} {'raw insert ÷ this':>17s}")
    for name, values in batches.items():
        print(f"{name:22s} {values['cpu_us_per_row']:13.1f} {'':>11s} {values['raw_insert_vs_this']:17.3f}")


def batch_budget(paths: dict[str, Path], bulk: list[workload.Item], appends: list[workload.Item],
                 workdir: Path) -> dict[str, dict[str, float]]:
    sgam = workload.Sgam()
    sgam.mem = workload.Memory(f"sqlite:///{paths['batch sgam']}")
    raw = workload.RawInsert()
    raw.open(workdir / "raw.db")
    for chunk in workload.chunks(iter(bulk), workload.BATCH, len(bulk)):
        raw.ingest(chunk)
    ingest: dict[str, Callable[[list[workload.Item]], None]] = {"sgam write_many": sgam.ingest}
    for name, one_row in (("two rows", False), ("one row", True)):
        ingest[f"inserts, {name}"] = Statements(paths[f"batch {name}"], one_row=one_row).ingest
    ingest["raw indexed insert"] = raw.ingest
    cpu = per_row_cpu(ingest, appends)
    sgam.close()
    raw.close()
    return {name: {"cpu_us_per_row": value, "raw_insert_vs_this": round(cpu["raw indexed insert"] / value, 3)}
            for name, value in cpu.items()}


if __name__ == "__main__":
    main()
