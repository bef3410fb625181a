"""Export: every row a tenant holds, from one read's snapshot, to the export format.

Sequence numbers of operations are the store's own, so a record carries an operation's
rank in the tenant's log instead (1 for its first operation); a column that names an
operation (a version's ``assertion_id``, ``supersedes``) or the last operation before a
step (``after_seq``) carries that rank too. A generated key the store made (a document's
``doc_id``) is carried as the row's rank in its table, and the rows naming it the same.
The ranks of the operations are kept while the export runs: eight bytes an operation.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.values import check_tenant
from ..ledger.service import Ledger
from ..store._portable import PORTABLE_TABLES, RANKED, THREAD_TABLES, PortableTable
from ..store._protocol import PortableRowStore
from .format import ExportWriter, Header, encode_row, instant_text, open_text

Progress = Callable[[int, int], None]
"""Called with (records done, records in all) as an export or import goes."""

KEY_CHECK = ("export", "erasure key check")
"""What the header's ``erasure_key_check`` is the keyed digest of: a destination with
the same erasure key and tenant computes the same, so its tombstones match."""


@dataclass(frozen=True)
class ExportSummary:
    tenant: str
    records: int
    counts: dict[str, int]
    sha256: str


def exported_tables(threads: bool) -> tuple[PortableTable, ...]:
    return PORTABLE_TABLES if threads else tuple(t for t in PORTABLE_TABLES if t not in THREAD_TABLES)


def export_tenant(ledger: Ledger, tenant: str, path: str | Path, *, threads: bool = True,
                  progress: Progress | None = None) -> ExportSummary:
    """Write everything ``tenant`` holds to ``path`` (``-``: standard output; ``.gz``:
    gzip), read in one snapshot."""
    tenant = check_tenant(tenant)
    tables = exported_tables(threads)
    backend_name = type(ledger.backend).__name__.removesuffix("Backend").lower()
    from .. import __version__

    with ledger.backend.read(tenant) as reader, open_text(path, "w") as out:
        rows = reader.portable()
        counts = {table.name: rows.count_rows(table) for table in tables}
        header = Header(__version__, backend_name, ledger.backend.schema_version(), tenant,
                        instant_text(ledger.now()), threads, {k: v for k, v in counts.items() if v},
                        ledger.digests.of(tenant, *KEY_CHECK))
        writer = ExportWriter(out)
        writer.line(header.record())
        total = sum(counts.values())
        ranks = Ranks(rows)
        for table in tables:
            for row in table_records(rows, table, ranks):
                writer.row(table.name, row)
                if progress is not None and writer.records % 1000 == 0:
                    progress(writer.records - 1, total)
        digest = writer.close()
    if progress is not None:
        progress(total, total)
    return ExportSummary(tenant, writer.records - 1, header.counts, digest)


class Ranks:
    """The tenant's operations' sequence numbers, in order, and the ranks of generated keys."""

    def __init__(self, rows: PortableRowStore) -> None:
        self._rows = rows
        self.operations = array("q")
        self.generated: dict[str, dict[int, int]] = {}

    def operation(self, seq: int | None) -> int | None:
        """How many of the tenant's operations are numbered up to ``seq``."""
        return None if seq is None else bisect_right(self.operations, seq)


Keep = Callable[[PortableTable, dict[str, Any]], bool]
"""Whether a stored row (column → stored value, before renumbering) goes in the file."""


def table_records(rows: PortableRowStore, table: PortableTable, ranks: Ranks,
                   keep: Keep | None = None) -> Iterator[dict[str, Any]]:
    keys = len(table.order)
    referenced = table.name in RANKED
    own: dict[int, int] = {}
    if referenced:
        ranks.generated[table.name] = own
    for stored in rows.table_rows(table):
        values = list(stored[keys:])
        kept = keep is None or keep(table, dict(zip(table.columns, values, strict=True)))
        if table.name == "operations":
            ranks.operations.append(int(values[0]))
            values[0] = len(ranks.operations)
        else:
            _renumber(table, values, ranks)
        if referenced:
            own[int(stored[0])] = len(own) + 1
        if not kept:
            continue
        record = encode_row(table, values)
        if referenced:
            record = {RANKED[table.name]: len(own), **record}
        yield record


def _renumber(table: PortableTable, values: list[Any], ranks: Ranks) -> None:
    for index, column in enumerate(table.columns):
        if column in table.operations or column in table.after:
            values[index] = ranks.operation(values[index])
        elif column in table.parents:
            values[index] = ranks.generated[table.parents[column]][int(values[index])]
