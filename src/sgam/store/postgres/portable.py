"""PostgreSQL's part of carrying a tenant's rows: the spellings of an export line's
instants and plain values, and forgetting the process's cached schemas of the tenant once
an import wrote them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import pairwise
from typing import Any

from .._portable import PortableTable
from .._sql.portable import PAGE, PortableRows
from .._sql.portable_lines import REAL_RANGE, LinePage, page_of
from .._sql.session import Row, Session
from .lanes import SnapshotLanes
from .session import PostgresSession

REALS = frozenset({"double precision", "real"})
INTEGERS = frozenset({"smallint", "integer", "bigint"})
"""Whose text is already their JSON text."""

DENSE = 4
"""How much wider than its rows a table's integer keys may spread and still be paged by
key value (``_bounds_statement``)."""

KEYS_DEFERRED = "sgam.keys_deferred"
"""The setting under which the operations' insert trigger lists no ledger key (the
baseline's ``operations_key_insert``)."""


class PostgresPortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, forget: dict[str, Any] | None = None,
                 quiet: dict[str, int] | None = None, lanes: Callable[[], SnapshotLanes | None] | None = None) -> None:
        super().__init__(db, tenant)
        self._schemas = forget
        self._quiet = quiet
        self._lanes = lanes
        self._bounds: dict[str, list[Row]] = {}
        """Each counted table's page bounds (``count_rows``), until its lines are read."""
        self._types: dict[tuple[str, str], str] | None = None
        self._cursors = 0

    newline = "chr(10)"

    def instant(self, column: str) -> str:
        """``to_char`` writes the quotes too (a pattern's ``\\"``): two concatenations
        fewer a row for each instant."""
        return f"to_char({column} AT TIME ZONE 'UTC', E'\\\\\"YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\\\\\"')"

    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[LinePage]:
        """A table of more than one page, in a read whose snapshot other connections can
        take up: its pages built on the read's lanes (``lanes.py``) side by side. Otherwise
        pages of one cursor over the lines, the next page asked for before this one is
        given: the server builds it while the caller writes this one."""
        if not isinstance(self._db, PostgresSession):
            yield from super().record_lines(table, operations, page)
            return
        lanes = self._lanes() if self._lanes is not None else None
        bounds = self._bounds.pop(table.name, None) if page == PAGE else None
        if lanes is not None and bounds is None:
            bounds, _ = self.page_bounds(table, page, self._db.rows(self.page_bounds_sql(table, page), (self.tenant,)))
        if lanes is not None and bounds:
            ranges = list(pairwise([None, *bounds, None]))
            native = [(self._db.dialect.native(sql), params) for sql, params in
                      (self._joined_page(table, operations, after, upto) for after, upto in ranges)]
            for (after, upto), built in zip(ranges, lanes.pages(native), strict=True):
                count, text = built[0]
                if count:
                    yield LinePage(text, int(count), partial(self._db.rows, *self.page_statement(
                        table, operations, after, upto)))
            return
        self._cursors += 1  # a name of its own: a walk left unfinished keeps its cursor open
        name = f"sgam_lines_{self._cursors}"
        keys = ", ".join(table.order)
        line = self.utf8(self.line_sql(table, operations))
        self._db.run(f"DECLARE {name} NO SCROLL CURSOR FOR SELECT {keys}, {line} FROM {self.source(table)} "
                     f"WHERE tenant = ? ORDER BY {keys}", (self.tenant,))
        fetch = f"FETCH FORWARD {int(page)} FROM {name}"
        sent = self._db.send(fetch)
        while True:
            rows = sent.fetchall()
            if len(rows) == page:
                sent = self._db.send(fetch)
            if rows:
                yield page_of(rows)
            if len(rows) < page:
                break
        self._db.run(f"CLOSE {name}")

    def _joined_page(self, table: PortableTable, operations: int | None, after: Sequence[Any] | None,
                     upto: Sequence[Any] | None) -> tuple[str, tuple[Any, ...]]:
        """One row for the page in ``key_range``: how many lines and their text joined in
        order (NULL for none), which the server sends as one value instead of a message
        per row."""
        where, params = self.key_range(table, after, upto)
        return (f"SELECT count(*), string_agg({self.line_sql(table, operations)}, '' ORDER BY "
                f"{', '.join(table.order)}) FROM {self.source(table)} WHERE {where}", params)

    def count_rows(self, tables: Sequence[PortableTable]) -> dict[str, int]:
        """Where the lines are built on lanes: each table counted by the statement that
        finds its pages' bounds (``_bounds_statement``), kept for ``record_lines``,
        instead of a count and later a second pass over the same keys; the tables counted
        on the lanes side by side."""
        lanes = self._lanes() if self._lanes is not None else None
        if lanes is None:
            return super().count_rows(tables)
        planned = [self._bounds_statement(table) for table in tables]
        statements = [(self._db.dialect.native(sql), params) for sql, params, _ in planned]
        counts: dict[str, int] = {}
        for table, (*_, by_value), found in zip(tables, planned, lanes.pages(statements, text_as_bytes=False),
                                               strict=True):
            if not by_value:
                self._bounds[table.name], counts[table.name] = self.page_bounds(table, PAGE, found)
                continue
            count, low, high = found[0]
            counts[table.name] = int(count)
            if not count or int(high) - int(low) < DENSE * int(count):
                self._bounds[table.name] = [(key,) for key in range(int(low or 0) - 1 + PAGE, int(high or 0), PAGE)]
        self._counted = counts
        return counts

    def _bounds_statement(self, table: PortableTable) -> tuple[str, tuple[str, ...], bool]:
        """The statement (and its parameters) that counts ``table`` and finds its pages'
        bounds, and whether its pages go by key value. A key of one integer column, unique
        in the tenant, pages by value: ``PAGE`` consecutive values hold at most ``PAGE``
        rows, so the count (a pass over the index's entries) and the lowest and highest key
        (an end of the index each) give every page, in a third of the time of
        ``page_bounds_sql``'s window. Keys spread thinner than ``DENSE`` (a sequence shared
        with other tenants) would make too many near-empty pages: ``record_lines`` then
        finds the bounds by the window."""
        key = table.order[0] if len(table.order) == 1 else None
        if key is not None and self._column_types().get((table.name, key)) in INTEGERS:
            return (f"SELECT (SELECT count(*) FROM {table.name} WHERE tenant = ?), "
                    f"(SELECT min({key}) FROM {table.name} WHERE tenant = ?), "
                    f"(SELECT max({key}) FROM {table.name} WHERE tenant = ?)"), (self.tenant,) * 3, True
        return self.page_bounds_sql(table, PAGE), (self.tenant,), False

    def utf8(self, text: str) -> str:
        return f"convert_to({text}, 'UTF8')"

    def plain(self, table: PortableTable, column: str) -> str:
        """``to_json`` escapes text as Python's encoder does; an integer's text is its JSON
        text. A double's text is its
        shortest (``extra_float_digits`` 1, the default; checked by reading it back),
        with ``.0`` added to a whole number as Python writes it."""
        kind = self._column_types().get((table.name, column))
        if kind in INTEGERS:
            return f"COALESCE({column}::text, 'null')"
        if kind not in REALS:
            return f"COALESCE(to_json({column})::text, 'null')"
        return (f"CASE WHEN {column} IS NULL THEN 'null' WHEN {REAL_RANGE.format(c=column)} "
                f"AND {column}::text::float8 = {column} THEN {column}::text "
                f"|| CASE WHEN {column} = trunc({column}) THEN '.0' ELSE '' END ELSE chr(1) END")

    def _column_types(self) -> dict[tuple[str, str], str]:
        if self._types is None:
            found = self._db.rows("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                  "WHERE table_schema = current_schema()")
            self._types = {(str(name), str(column)): str(kind) for name, column, kind in found}
        return self._types

    def importing(self) -> None:
        """The operations' statement trigger lists no key while the import runs (a
        statement per batch of operations, each reading its batch's keys): ``imported``
        lists them all in one statement. Where the database cannot copy between its
        tables in place (Citus), the trigger goes on listing them batch by batch."""
        if self._db.dialect.copies_between_tables:
            self._db.run(f"SET LOCAL {KEYS_DEFERRED} = on")

    def imported(self) -> None:
        if self._db.dialect.copies_between_tables:
            self._db.run("INSERT INTO ledger_keys (tenant, subject, attribute) "
                         "SELECT DISTINCT tenant, subject, attribute FROM operations WHERE tenant = ?",
                         (self.tenant,))
            self._db.run(f"SET LOCAL {KEYS_DEFERRED} = off")
        for cache in (self._schemas, self._quiet):
            if cache is not None:
                cache.pop(self.tenant, None)
