"""Export: every row a tenant holds, from one read's snapshot, to the export format.

Sequence numbers of operations are the store's own, so a record carries an operation's
rank in the tenant's log instead (1 for its first operation); a column that names an
operation (a version's ``assertion_id``, ``supersedes``) or the last operation before a
step (``after_seq``) carries that rank too. A generated key the store made (a document's
``doc_id``) is carried as the row's rank in its table, and the rows naming it the same.

The database writes most lines itself (``PortableRowStore.record_lines``): the export
then only joins and writes text. Where the tenant's operations are numbered 1..n without
a gap (no operation was erased), an operation's rank is its number and the database
writes the lines that name operations too; otherwise those tables are encoded here and
the ranks of the operations are kept while the export runs: eight bytes an operation.
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
from ..store._sql.portable import PAGE
from ..store._sql.portable_lines import UNWRITTEN
from ..store.contract import PortableRowStore
from .format import ENCODERS, ExportWriter, Header, instant_text, open_bytes

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

    with ledger.backend.read(tenant) as reader, open_bytes(path, "w") as out:
        rows = reader.portable()
        counts = rows.count_rows(tables)
        header = Header(__version__, backend_name, ledger.backend.schema_version(), tenant,
                        instant_text(ledger.now()), threads, {k: v for k, v in counts.items() if v},
                        ledger.digests.of(tenant, *KEY_CHECK))
        writer = ExportWriter(out)
        writer.line(header.record())
        total = sum(counts.values())
        ranks = Ranks(rows)
        for table in (table for table in tables if counts[table.name]):
            for data, lines in table_text(rows, table, ranks):
                writer.encoded(data, lines)
                if progress is not None:
                    progress(writer.records - 1, total)
        digest = writer.close()
    if progress is not None:
        progress(total, total)
    return ExportSummary(tenant, writer.records - 1, header.counts, digest)


class Ranks:
    """The ranks of the tenant's operations and of generated keys. ``dense``: the number
    of operations when they are numbered 1..n (a number is then its rank), else None and
    ``operations`` holds their numbers in order as the export reads them."""

    def __init__(self, rows: PortableRowStore) -> None:
        count, last = rows.operation_numbers()
        self.dense = count if count == last else None
        self.operations = array("q")
        self.generated: dict[str, dict[int, int]] = {}

    def operation(self, seq: int) -> int:
        """How many of the tenant's operations are numbered up to ``seq``."""
        if self.dense is not None:
            return min(seq, self.dense)
        return bisect_right(self.operations, seq)


Keep = Callable[[PortableTable, dict[str, Any]], bool]
"""Whether a stored row (column → stored value, before renumbering) goes in the file."""

WRITTEN = 2000
"""Lines encoded here written (and hashed) as one piece."""


def _pages(lines: Iterator[str]) -> Iterator[list[str]]:
    page: list[str] = []
    for line in lines:
        page.append(line)
        if len(page) == WRITTEN:
            yield page
            page = []
    if page:
        yield page


def table_text(rows: PortableRowStore, table: PortableTable, ranks: Ranks) -> Iterator[tuple[bytes, int]]:
    """``table``'s lines as UTF-8 a piece at a time, with the number of lines in each:
    written by the database where it can, as bytes that go to the file untouched."""
    if not rows.renders(table, ranks.dense):
        for encoded in _pages(table_lines(rows, table, ranks)):
            yield "".join(encoded).encode(), len(encoded)
        return
    keys = len(table.order)
    encoder = ENCODERS[table.name]
    for page in rows.record_lines(table, ranks.dense, PAGE):
        data = page.text
        if UNWRITTEN in data:
            data = b"".join([row[keys] if UNWRITTEN not in row[keys] else
                             encoder.line(_renumbered(table, list(rows.stored_row(table, row[:keys])[keys:]),
                                                      ranks)).encode()
                             for row in page.keyed()])
        yield data, page.lines


def _renumbered(table: PortableTable, values: list[Any], ranks: Ranks) -> list[Any]:
    """A row's values with the operations it names as ranks (its table is not ranked)."""
    for index, column in enumerate(table.columns):
        if values[index] is not None and (column in table.operations or column in table.after):
            values[index] = ranks.operation(int(values[index]))
    return values


def table_lines(rows: PortableRowStore, table: PortableTable, ranks: Ranks,
                keep: Keep | None = None) -> Iterator[str]:
    """The lines of ``table``'s records, each a row renumbered as the format numbers it."""
    keys = len(table.order)
    referenced = table.name in RANKED
    own: dict[int, int] = {}
    if referenced:
        ranks.generated[table.name] = own
    encoder = ENCODERS[table.name]
    is_operations = table.name == "operations"
    renumbered = [(index, column in table.operations or column in table.after, table.parents.get(column))
                  for index, column in enumerate(table.columns)
                  if column in table.operations or column in table.after or column in table.parents]
    operations = ranks.operations
    for stored in rows.table_rows(table):
        values = list(stored[keys:])
        kept = keep is None or keep(table, dict(zip(table.columns, values, strict=True)))
        if is_operations and ranks.dense is None:
            operations.append(int(values[0]))
            values[0] = len(operations)
        elif not is_operations:
            for index, names_operation, parent in renumbered:
                value = values[index]
                if value is None:
                    continue
                values[index] = (ranks.operation(value) if names_operation
                                 else ranks.generated[parent][int(value)] if parent is not None else value)
        if referenced:
            own[int(stored[0])] = len(own) + 1
        if kept:
            yield encoder.line(values, len(own) if referenced else None)
