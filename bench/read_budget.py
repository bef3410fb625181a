"""Where a current SQLite point read's time goes, layer by layer, beside the reference.

A store is bulk-loaded with ``ledger.py``'s workload, and so is the indexed reference (c);
then the same random keys are read, each read timed alone, peeling one layer at a time:

- **Memory.get**: the public call (argument checks, the ledger's read scope with its
  deadline probe, consent, subject and attribute resolution, the record);
- **read scope + reader.get + record**: the backend's one-snapshot scope, the key's
  lookup and the conversion to ``Assertion``, nothing else;
- **read scope + reader.get**: without the record;
- **lookup statement**: only the statement a point read sends (the version holding now,
  with every column a record needs, and the start of the next one);
- **one-column statement**: the same index probe returning only the value;
- **reference read**: variant (c)'s current read of ``ledger.py`` (its statement and call,
  which formats the key's names; the layers above get them ready-made).

Printed: p50 and p99 in microseconds and each p50 ÷ the reference's, all from one run.

    python bench/read_budget.py --facts 100000
    python bench/read_budget.py --facts 1000000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import ledger as workload  # noqa: E402
from _timing import timed  # noqa: E402

from sgam.ledger.records import to_assertion  # noqa: E402
from sgam.store._sql.ledger import GET  # noqa: E402

READS = 20_000
VALUE_ONLY = (
    "SELECT value FROM assertions INDEXED BY assertions_current WHERE tenant = ? AND subject = ? AND attribute = ? "
    "AND recorded_to IS NULL AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.facts < 1_000:
        parser.error("--facts must be at least 1,000")
    load_at_start = os.getloadavg()[0]
    workdir = Path(tempfile.mkdtemp(prefix="sgam-read-budget-"))
    sgam, reference = workload.Sgam(), workload.IndexedReference()
    sgam.open(workdir / "sgam.db")
    reference.open(workdir / "reference.db")
    for chunk in workload.chunks(workload.workload(args.facts), workload.BATCH, args.facts):
        sgam.ingest(chunk)
        reference.ingest(chunk)
    print(f"# {args.facts:,} facts loaded", file=sys.stderr)
    memory = sgam.mem
    backend, conn = memory.ledger.backend, memory.ledger.backend._conn  # type: ignore[attr-defined]
    now = memory.ledger.now()
    keys = [random.Random(7).randrange(args.facts // workload.VERSIONS) for _ in range(READS)]
    names = [(workload.subject_of(key), workload.attribute_of(key)) for key in keys]
    tenant = workload.TENANT

    def layered(call: Callable[[str, str], object]) -> Callable[[], object]:
        cursor = iter(names * 3)
        return lambda: call(*next(cursor))

    def scoped(subject: str, attribute: str) -> object:
        with backend.read(tenant) as reader:
            return reader.get(subject, attribute, now, None)

    def recorded(subject: str, attribute: str) -> object:
        with backend.read(tenant) as reader:
            found = reader.get(subject, attribute, now, None)
        return None if found is None else to_assertion(tenant, found)

    reference_keys = iter(keys * 3)
    layers: dict[str, Callable[[], object]] = {
        "Memory.get": layered(lambda s, a: memory.get(tenant, s, a)),
        "read scope + reader.get + record": layered(recorded),
        "read scope + reader.get": layered(scoped),
        "lookup statement": layered(lambda s, a: conn.execute(GET, (tenant, s, a, now, tenant, s, a, now)).fetchall()),
        "one-column statement": layered(lambda s, a: conn.execute(VALUE_ONLY, (tenant, s, a, now)).fetchall()),
        "reference read": lambda: reference.read_current(next(reference_keys)),
    }
    for call in layers.values():  # warm every cache and page alike
        for _ in range(READS // 10):
            call()
    figures = {name: timed(call, READS) for name, call in layers.items()}
    floor = figures["reference read"]["p50_us"]
    for values in figures.values():
        values["vs_reference"] = round(values["p50_us"] / floor, 2)
    sgam.close()
    reference.close()
    shutil.rmtree(workdir)
    report = {"facts": args.facts, "reads": figures, "machine": workload.machine(load_at_start)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'current read':34s} {'p50 us':>8s} {'p99 us':>8s} {'÷ reference':>12s}")
    for name, values in figures.items():
        print(f"{name:34s} {values['p50_us']:8.1f} {values['p99_us']:8.1f} {values['vs_reference']:12.2f}")


if __name__ == "__main__":
    main()
