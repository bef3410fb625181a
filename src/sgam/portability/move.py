"""Move: export, import, verify, and only then (when asked) erase the source.

The verification exports the tenant again from the destination and compares it, record
for record, with the first export; the header (which names the store) and the closing
digest (which covers the header) are left out of the comparison. A move that fails at any
point leaves the source as it was and the destination without the tenant: the import is
one unit of work, and a failed verification deletes what it wrote.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from .._core.errors import StoreError
from .._core.values import check_tenant
from ..ledger.service import Ledger
from ..store import WriteTransaction
from ..store._portable import PORTABLE_TABLES, STORE_TABLES
from .exporter import Progress, export_tenant
from .format import open_text
from .importer import import_tenant


@dataclass(frozen=True)
class MoveSummary:
    tenant: str
    records: int
    verified: bool
    source_erased: bool


def same_records(first: str | Path, second: str | Path) -> bool:
    """Whether two export files hold the same records (header and closing record aside)."""
    with open_text(first, "r") as one, open_text(second, "r") as two:
        lines = zip_longest(one, two)
        next(lines, None)
        previous: tuple[str | None, str | None] | None = None
        for pair in lines:
            if previous is not None and previous[0] != previous[1]:
                return False
            previous = pair
        return True  # the last pair is the closing records, which name the header's digest


def erase_tenant(ledger: Ledger, tenant: str) -> int:
    """Delete every row ``tenant`` holds in this store (its search vectors, API keys and
    idempotency records too), then what erasure leaves outside live rows."""

    def work(txn: WriteTransaction) -> int:
        return txn.portable().delete_tenant_rows(PORTABLE_TABLES + STORE_TABLES)

    removed = ledger.backend.run_write(check_tenant(tenant), work)
    ledger.backend.purge_residue()
    return removed


def move_tenant(source: Ledger, destination: Ledger, tenant: str, *, erase_source: bool = False,
                threads: bool = True, progress: Progress | None = None) -> MoveSummary:
    """Carry ``tenant`` from ``source`` to ``destination`` (which must not hold it)."""
    tenant = check_tenant(tenant)
    with tempfile.TemporaryDirectory(prefix="sgam-move-") as folder:
        exported = Path(folder) / "source.jsonl.gz"
        again = Path(folder) / "destination.jsonl.gz"
        summary = export_tenant(source, tenant, exported, threads=threads, progress=progress)
        import_tenant(destination, tenant, exported, progress=progress)
        export_tenant(destination, tenant, again, threads=threads)
        if not same_records(exported, again):
            erase_tenant(destination, tenant)
            raise StoreError(f"moving tenant {tenant!r}: the destination's export differs from the source's; "
                             "the destination's copy was removed and the source left as it was")
    if erase_source:
        erase_tenant(source, tenant)
    return MoveSummary(tenant, summary.records, True, erase_source)
