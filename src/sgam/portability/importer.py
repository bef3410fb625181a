"""Import: a checked export file written into an empty tenant in one unit of work.

The file is read twice. The first pass (``format.check_file``) checks the header and the
closing digest over the file's bytes, and writes nothing: a truncated or altered file is
refused before the destination is touched. The second parses, checks and applies the
records in file order inside one transaction of the destination: a fault anywhere (a
record that fails validation, counts that differ from the header's, a row the database
refuses, an episode id the destination erased, a crash) rolls it all back, so no tenant
is ever left half imported. Rows are inserted a batch at a time; what is kept
across batches is the new keys of the documents, never the rows themselves.

The operations' new numbers are drawn at once, as many as the header counts, so that
they run without a gap and a rank maps to its number by adding the first; and the
destination's tombstones are asked about episodes only when it holds some. Nothing
then waits for the database between batches: on PostgreSQL the inserts stream through
the unit of work's pipeline while the next lines are parsed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.errors import ConflictError, ValidationError
from .._core.values import check_tenant
from ..ledger.service import Ledger
from ..store import WriteTransaction
from ..store._portable import PORTABLE_TABLES, TABLES_BY_NAME, PortableTable
from ..store.contract import PortableRowStore
from .exporter import KEY_CHECK, Progress
from .format import Header, check_file, records

BATCH = 1000
"""Rows inserted per statement batch."""


@dataclass(frozen=True)
class ImportSummary:
    tenant: str
    source_tenant: str
    records: int
    counts: dict[str, int]


def import_tenant(ledger: Ledger, tenant: str, path: str | Path, *,
                  progress: Progress | None = None) -> ImportSummary:
    """Recreate the tenant exported to ``path`` as ``tenant`` of this store; the tenant
    must hold nothing (else ``ConflictError``). A file that is truncated, altered, of an
    unknown version or with a record that fails validation is refused before anything is
    written (``ValidationError``)."""
    tenant = check_tenant(tenant)
    header = check_file(path)
    if header.subject is not None:
        raise ValidationError("line 1.subject", header.subject,
                              "names a subject's export, an answer to an access request: only a tenant's "
                              "export can be imported")
    tombstones = header.counts.get("tombstones", 0)
    if tombstones and header.erasure_key_check != ledger.digests.of(tenant, *KEY_CHECK):
        raise ValidationError(
            "erasure_key_check", header.erasure_key_check,
            f"differs here: the file's {tombstones} tombstones only match under the source's erasure key and "
            "tenant name; import into the same tenant name with that key (SGAM_ERASURE_KEY or "
            "SGAM_ERASURE_KEY_FILE)")

    def work(txn: WriteTransaction) -> int:
        return _apply(ledger, txn, header, path, progress)

    applied = ledger.backend.run_write(tenant, work)
    return ImportSummary(tenant, header.tenant, applied, header.counts)


def _apply(ledger: Ledger, txn: WriteTransaction, header: Header, path: str | Path,
           progress: Progress | None) -> int:
    rows = txn.portable()
    held = rows.tables_holding_rows([t for t in PORTABLE_TABLES if not t.outlives_erasure])
    if held:
        raise ConflictError(f"tenant {txn.tenant!r} already holds data (in {', '.join(held)}): "
                            "import only into a tenant that holds nothing")
    rows.importing()
    state = _Applying(ledger, txn, rows, header.counts.get("operations", 0))
    total = sum(header.counts.values())
    for done, (table, values, rank) in enumerate(records(path, header), start=1):
        state.add(table, values, rank)
        if progress is not None and done % 1000 == 0:
            progress(done, total)
    state.flush()
    rows.imported()
    if progress is not None:
        progress(total, total)
    return total


class _Applying:
    """Batches of one table at a time, renumbered as the destination numbers them."""

    def __init__(self, ledger: Ledger, txn: WriteTransaction, rows: PortableRowStore, operations: int) -> None:
        self._ledger = ledger
        self._txn = txn
        self._rows = rows
        self._table: PortableTable | None = None
        self._batch: list[list[Any]] = []
        self._numbers = rows.reserve_operation_seqs(operations)
        self._numbered = 0
        """Operations applied so far: the ranks a later row may name."""
        self._tombstones = bool(rows.tables_holding_rows([TABLES_BY_NAME["tombstones"]]))
        self._keys: dict[str, dict[int, int]] = {}

    def add(self, table: PortableTable, values: list[Any], rank: int | None) -> None:
        if table is not self._table:
            self.flush()
            self._table = table
        if rank is not None:
            self.flush()
            key = self._rows.insert_generated_row(table, self._renumbered(table, values))
            self._keys.setdefault(table.name, {})[rank] = key
            return
        self._batch.append(values)
        if len(self._batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        table, batch = self._table, self._batch
        if table is None or not batch:
            return
        self._batch = []
        if table.name == "operations":
            self._number_operations(batch)
        elif table.name == "episodes" and self._tombstones:
            self._refuse_tombstoned([str(values[0]) for values in batch])
        if table.operations or table.after or table.parents:
            batch = [self._renumbered(table, values) for values in batch]
        self._rows.insert_table_rows(table, batch)

    def _number_operations(self, batch: list[list[Any]]) -> None:
        expected = self._numbered + 1
        for offset, values in enumerate(batch):
            if values[0] != expected + offset:
                raise ValidationError("operations.seq", values[0],
                                      f"must number the operations in order from 1 (expected {expected + offset})")
        if self._numbered + len(batch) > len(self._numbers):
            raise ValidationError("line 1.counts.operations", len(self._numbers),
                                  f"but the file holds more than {len(self._numbers)} records of operations")
        self._numbered += len(batch)

    def _refuse_tombstoned(self, episode_ids: Sequence[str]) -> None:
        digests = {self._ledger.digests.of(self._txn.tenant, "episode", episode_id): episode_id
                   for episode_id in episode_ids}
        erased = self._txn.tombstoned_among(list(digests))
        if erased:
            raise ConflictError(f"episode {digests[sorted(erased)[0]]!r} was erased from tenant "
                                f"{self._txn.tenant!r} of this store: its tombstone refuses it")

    def _renumbered(self, table: PortableTable, values: list[Any]) -> list[Any]:
        out = list(values)
        for index, column in enumerate(table.columns):
            value = out[index]
            if value is None:
                continue
            if column in table.operations or column in table.after:
                out[index] = self._operation(table, column, int(value))
            elif column in table.parents:
                known = self._keys.get(table.parents[column], {})
                if int(value) not in known:
                    raise ValidationError(f"{table.name}.{column}", value,
                                          f"names no row of {table.parents[column]} before it")
                out[index] = known[int(value)]
        return out

    def _operation(self, table: PortableTable, column: str, rank: int) -> int:
        if rank == 0:
            return 0
        if not 0 < rank <= self._numbered:
            raise ValidationError(f"{table.name}.{column}", rank, "names no operation of the file")
        return self._numbers[rank - 1]

