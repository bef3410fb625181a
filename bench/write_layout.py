"""What the indexes a one-fact write maintains cost it: SQLite's schema (the baseline)
against the same store with its former write-path indexes put back, in one process.

Both stores bulk-load the same N - 12,000 facts of ``ledger.py``'s workload, then take the
last 12,000 as one-fact writes in alternating chunks of 2,000, so that load on the machine
falls on both alike. Printed per layout: batch rows and one-fact writes per CPU-second
(and per wall second), and the WAL frames (pages) one write adds, counted with automatic
checkpoints off after the timed writes; the indexed reference's frames for comparison.

    python bench/write_layout.py --facts 100000
    python bench/write_layout.py --facts 1000000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import ledger as workload  # noqa: E402

FORMER_INDEXES = (
    "DROP INDEX operations_by_key",
    "CREATE INDEX operations_by_key ON operations (tenant, subject, attribute, seq)",
    "CREATE INDEX assertions_current_by_attribute ON assertions (tenant, attribute, subject, valid_from) "
    "WHERE recorded_to IS NULL",
    "CREATE INDEX assertions_current_by_type ON assertions (tenant, memory_type, subject, attribute, valid_from) "
    "WHERE recorded_to IS NULL",
)
WRITES = 12_000
CHUNK = 2_000
FRAME_WRITES = 2_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = args.facts
    items = list(workload.workload(n + FRAME_WRITES))
    bulk, timed, counted = items[: n - WRITES], items[n - WRITES: n], items[n:]
    workdir = Path(tempfile.mkdtemp(prefix="sgam-layout-"))
    layouts: dict[str, workload.Sgam] = {}
    figures: dict[str, dict[str, float]] = {}
    for name in ("former write-path indexes", "baseline"):
        store = workload.Sgam()
        store.open(workdir / f"{name.replace(' ', '-')}.db")
        if name == "former write-path indexes":
            for statement in FORMER_INDEXES:
                store.mem.ledger.backend._conn.execute(statement)  # type: ignore[attr-defined]
        started = time.process_time()
        for chunk in workload.chunks(iter(bulk), workload.BATCH, len(bulk)):
            store.ingest(chunk)
        figures[name] = {"batch_rows_per_cpu_s": round(len(bulk) / (time.process_time() - started))}
        layouts[name] = store
        print(f"# {name}: {len(bulk):,} facts loaded", file=sys.stderr)
    cpu: dict[str, list[float]] = {name: [] for name in layouts}
    wall: dict[str, list[float]] = {name: [] for name in layouts}
    for start in range(0, WRITES, CHUNK):
        for name, store in layouts.items():
            chunk = timed[start: start + CHUNK]
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            for item in chunk:
                store.write_one(item)
            cpu[name].append(len(chunk) / (time.process_time() - cpu_start))
            wall[name].append(len(chunk) / (time.perf_counter() - wall_start))
    for name, store in layouts.items():
        figures[name]["writes_per_cpu_s"] = round(statistics.median(cpu[name]))
        figures[name]["writes_per_s"] = round(statistics.median(wall[name]))
        conn = store.mem.ledger.backend._conn  # type: ignore[attr-defined]
        figures[name]["wal_frames_per_write"] = round(
            workload.frames_per_write(conn, workdir / f"{name.replace(' ', '-')}.db", store.write_one, counted), 2)
        store.close()
    reference = workload.IndexedReference()
    reference.open(workdir / "reference.db")
    for chunk in workload.chunks(iter(items[:n]), workload.BATCH, n):
        reference.ingest(chunk)
    frames = workload.frames_per_write(reference.conn, workdir / "reference.db", reference.write_one, counted)
    figures["indexed reference"] = {"wal_frames_per_write": round(frames, 2)}
    reference.close()
    shutil.rmtree(workdir)
    report = {"facts": n, "layouts": figures, "load_average": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, values in figures.items():
        print(f"{name:20s} " + "  ".join(f"{key} {value:,}" for key, value in values.items()))
    print(f"load average {report['load_average']:.2f}")


if __name__ == "__main__":
    main()
