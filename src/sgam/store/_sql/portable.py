"""A tenant's rows as they are stored, table by table: what an export reads and an import
writes back, written once for both backends.

Nothing here interprets a row: the tables (``store/_portable.py``) say which columns are
instants, booleans, bytes or canonical JSON values, which column is a key the store
makes itself (never carried), which names an operation by its sequence number, and which
names another table's generated key. The layer above (``sgam.portability``) turns rows
into records of the export format and back. Reads page by each table's ``order`` key, so
an export holds one page in memory, never a whole table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import pairwise
from typing import Any

from .._portable import PortableTable
from .counters import DRAW, draw_numbers
from .lanes import Lanes
from .portable_lines import LinePage, LineStatements
from .session import Row, Session

PAGE = 5000
"""Rows an export reads, or has the database write lines for, per statement."""

DENSE = 4
"""How much wider than its rows a table's integer keys may spread and still be paged by
key value (``value_bounds``)."""


STATEMENT = 4000
"""Characters of one multi-row INSERT: psycopg keeps the parsed form of a statement up to
4096 characters and parses a longer one again at every execution."""


COUNTED = frozenset({"extractions", "held_candidates"})
"""Tables whose key (``seq``) an import draws from the tenant's own counter
(``counters.py``): the database makes none for them."""


class PortableRows(LineStatements):
    """A tenant's stored rows, table by table, over a read's or a unit of work's session.
    An export's read may have lanes (``lanes.py``): connections on its snapshot that build
    a big table's pages side by side."""

    def __init__(self, db: Session, tenant: str, lanes: Callable[[], Lanes[Any] | None] | None = None) -> None:
        super().__init__(db, tenant)
        self._lane_source = lanes
        self._bounds: dict[str, list[Row]] = {}
        """Each table's page bounds that ``count_rows`` found for the lanes, until its
        lines are read."""

    def lanes(self) -> Lanes[Any] | None:
        """The read's lanes, opened on first use; None where it has none."""
        return self._lane_source() if self._lane_source is not None else None

    def table_rows(self, table: PortableTable, page: int = PAGE) -> Iterator[Row]:
        """Every row of the tenant in ``table``, in ``order``: the paging key's columns
        first (the generated key when there is one), then ``columns``."""
        for rows in self.keyset_pages(table, ", ".join((*table.order, *table.columns)), page):
            yield from rows

    def count_rows(self, tables: Sequence[PortableTable]) -> dict[str, int]:
        """The tenant's rows in each of ``tables``, in one statement."""
        if not tables:
            return {}
        counted = ", ".join(f"(SELECT count(*) FROM {table.name} WHERE tenant = ?)" for table in tables)
        row = self._db.row(f"SELECT {counted}", (self.tenant,) * len(tables))
        assert row is not None
        self._counted = {table.name: int(count) for table, count in zip(tables, row, strict=True)}
        return self._counted

    @staticmethod
    def value_bounds(count: int, low: int | None, high: int | None, page: int) -> list[Row] | None:
        """The bounds of a table's pages by key value, from how many rows it holds and its
        lowest and highest key (``key_ends_sql``), when its key is one column of integers
        unique in the tenant: ``page`` consecutive values hold at most ``page`` rows. None
        when the keys spread thinner than ``DENSE`` (a sequence shared with other tenants),
        which would make too many near-empty pages."""
        if not count or low is None or high is None:
            return []
        if high - low >= DENSE * count:
            return None
        return [(key,) for key in range(low - 1 + page, high, page)]

    def laned_lines(self, table: PortableTable, operations: int | None, bounds: list[Row],
                    lanes: Lanes[Any]) -> Iterator[LinePage]:
        """``table``'s lines, a page between each two of ``bounds`` (``joined_page``),
        built on ``lanes`` and taken back in order."""
        ranges = list(pairwise([None, *bounds, None]))
        statements = [(self._db.dialect.native(sql), params) for sql, params in
                      (self.joined_page(table, operations, after, upto) for after, upto in ranges)]
        for (after, upto), built in zip(ranges, lanes.pages(statements), strict=True):
            count, text = built[0]
            if count:
                yield LinePage(text, int(count), partial(self._db.rows, *self.page_statement(
                    table, operations, after, upto)))

    def tables_holding_rows(self, tables: Sequence[PortableTable]) -> list[str]:
        """Those of ``tables`` with a row of the tenant: one indexed probe each."""
        return [table.name for table in tables
                if self._db.row(f"SELECT 1 FROM {table.name} WHERE tenant = ? LIMIT 1", (self.tenant,))]

    def operation_rank(self, seq: int) -> int:
        """How many of the tenant's operations have a sequence number up to ``seq``."""
        row = self._db.row("SELECT count(*) FROM operations WHERE tenant = ? AND seq <= ?", (self.tenant, seq))
        return int(row[0]) if row else 0

    def insert_table_rows(self, table: PortableTable, rows: Sequence[Sequence[Any]]) -> None:
        """Insert rows of ``table`` (values in ``columns`` order, instants as microseconds),
        several to a statement and the statements as one batch: one ``INSERT … VALUES
        (…), (…)`` costs the server one parse and round of checks instead of one per row
        (a statement per row held an import into PostgreSQL to about a thousand rows a
        second), and a statement short enough for the driver to keep its parsed form."""
        if not rows:
            return
        columns = table.columns
        if table.name in COUNTED:
            numbers = draw_numbers(self._db, self.tenant, table.name, len(rows))
            rows = [(*row, number) for row, number in zip(rows, numbers, strict=True)]
            columns = (*columns, "seq")
        width = len(columns) + 1
        marks = "(" + ",".join("?" * width) + ")"
        times = [index for index, column in enumerate(table.columns) if column in table.times]
        kept = " ON CONFLICT DO NOTHING" if table.outlives_erasure else ""
        head = f"INSERT INTO {table.name} (tenant,{','.join(columns)}) VALUES "
        step = max(1, (STATEMENT - len(head) - len(kept)) // (len(marks) + width + 1))  # "?" is sent as "%s"
        params: list[list[Any]] = []
        for start in range(0, len(rows), step):
            flat: list[Any] = []
            for row in rows[start:start + step]:
                flat.append(self.tenant)
                flat += self._bound(row, times) if times else row
            params.append(flat)
        whole = params if len(params[-1]) == step * width else params[:-1]
        if whole:
            self._db.run_many(head + ",".join([marks] * step) + kept, whole)
        if whole is not params:
            self._db.run(head + ",".join([marks] * (len(params[-1]) // width)) + kept, params[-1])

    def reserve_operation_seqs(self, count: int) -> range:
        """The tenant's next ``count`` operation numbers, ascending and without a gap: every
        later operation of the tenant is numbered after them."""
        if count == 0:
            return range(0)
        row = self._db.row(DRAW, (self.tenant, "operations", count))
        assert row is not None
        return range(int(row[0]) - count + 1, int(row[0]) + 1)

    def insert_generated_row(self, table: PortableTable, row: Sequence[Any]) -> int:
        """Insert one row of ``table`` and return the key the store made for it."""
        assert table.generated is not None
        marks = ", ".join("?" * (len(table.columns) + 1))
        times = [index for index, column in enumerate(table.columns) if column in table.times]
        return self._db.insert(f"INSERT INTO {table.name} (tenant, {', '.join(table.columns)}) VALUES ({marks})",
                               (self.tenant, *self._bound(row, times)), table.generated)

    def _bound(self, row: Sequence[Any], times: list[int]) -> list[Any]:
        bound = list(row)
        for index in times:
            bound[index] = self._db.moment(bound[index])
        return bound

    def delete_tenant_rows(self, tables: Sequence[PortableTable]) -> int:
        """Delete every row of the tenant in ``tables``, children before parents."""
        return sum(self._db.count(f"DELETE FROM {table.name} WHERE tenant = ?", (self.tenant,))
                   for table in reversed(tables))

    def importing(self) -> None:
        """An import is about to write the tenant's rows: upkeep of derived index data
        that the store can do once for all of them waits for ``imported``."""

    def imported(self) -> None:
        """An import has written the tenant's rows behind the unit of work's back: do the
        upkeep ``importing`` put off, and forget what the store remembers of the tenant
        (it held nothing before)."""
