"""SQLite's part of carrying a tenant's rows: the spellings of an export line's instants
and plain values, and forgetting what the connection remembers of the tenant once an
import wrote it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from .._portable import PortableTable
from .._sql.portable import PAGE, PortableRows
from .._sql.portable_lines import REAL_RANGE, LinePage
from .._sql.session import Params, Session
from .cache import Cache
from .lanes import FileLanes


@dataclass(frozen=True, slots=True)
class _Declared:
    """What ``PRAGMA table_info`` says of a column."""

    type: str
    """Its declared type, upper case."""
    required: bool
    """NOT NULL."""
    key: bool
    """Part of the primary key."""


def _micros(column: str) -> str:
    """The microseconds past the whole second of an instant column."""
    return f"(({column} % 1000000 + 1000000) % 1000000)"


def _seconds(column: str) -> str:
    """The instant's whole seconds (rounded down) as ``YYYY-MM-DDTHH:MM:SS``."""
    return f"replace(datetime(({column} - {_micros(column)}) / 1000000, 'unixepoch'), ' ', 'T')"


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache,
                 lanes: Callable[[], FileLanes | None] | None = None) -> None:
        super().__init__(db, tenant, lanes)
        self._cache = cache
        self._declared: dict[str, dict[str, _Declared]] = {}

    def source(self, table: PortableTable) -> str:
        """A table paged by its rowid (an ``INTEGER PRIMARY KEY``) is read in rowid order,
        from the page's start on: the planner would otherwise take the tenant's index and
        sort all the tenant's rows for every page."""
        if len(table.order) == 1 and table.order[0] in self._rowid_key(table.name):
            return f"{table.name} NOT INDEXED"
        return table.name

    def utf8(self, text: str) -> str:
        return f"CAST({text} AS BLOB)"

    def count_rows(self, tables: Sequence[PortableTable]) -> dict[str, int]:
        """Counted on the read's connection, with the key's ends of each table keyed by
        integers (``key_ends_sql``). A table of more than a page whose keys are dense has
        its pages built on the read's lanes, opened here (``lanes.py``: they begin the read
        again, which only an export's first statement may do); if the read's snapshot
        moved as they opened, the tables are counted again on the new one."""
        counts, ends = self._count_with_ends(tables)
        lanes = self.lanes() if any(counts[name] > PAGE for name in ends) else None
        if isinstance(lanes, FileLanes):
            if lanes.moved:
                counts, ends = self._count_with_ends(tables)
            for name, (low, high) in ends.items() if lanes.count else ():
                bounds = self.value_bounds(counts[name], low, high, PAGE)
                if bounds:
                    self._bounds[name] = bounds
        self._counted = counts
        return counts

    def _count_with_ends(self, tables: Sequence[PortableTable]) -> tuple[dict[str, int], dict[str, tuple[Any, Any]]]:
        keyed = {table.name: key for table in tables if (key := self.integer_key(table)) is not None}
        counts = super().count_rows([table for table in tables if table.name not in keyed])
        ends: dict[str, tuple[Any, Any]] = {}
        for table in tables:
            if table.name in keyed:
                found = self._db.row(*self.key_ends_sql(table, keyed[table.name]))
                assert found is not None
                counts[table.name], ends[table.name] = int(found[0]), (found[1], found[2])
        return {table.name: counts[table.name] for table in tables}, ends

    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[LinePage]:
        """A table whose pages ``count_rows`` bounded on the read's lanes: built there side
        by side (``laned_lines``). Otherwise a table paged by one column: each page's lines
        joined by SQLite (``group_concat``) into one value, with the page's last key,
        instead of a Python row per line (a fifth of the export's time at 100k rows).
        SQLite before 3.44 has no ``ORDER BY`` inside an aggregate: the page is a subquery
        with ``ORDER BY`` and ``LIMIT``, which SQLite does not flatten into the aggregate
        and hands over in its order (the tests hold each page to the rows read one by one)."""
        bounds = self._bounds.pop(table.name, None)
        lanes = self.lanes() if bounds else None  # lanes only count_rows opened: they begin the read again
        if bounds and lanes is not None:
            yield from self.laned_lines(table, operations, bounds, lanes)
            return
        if len(table.order) != 1:
            yield from super().record_lines(table, operations, page)
            return
        key = table.order[0]
        after: tuple[int | str] | None = None
        while True:
            where, params = self.key_range(table, after, None)
            found = self._db.row(self._joined(table, operations, where, f"LIMIT {int(page)}", f", max({key})"), params)
            assert found is not None
            count, text, last = found
            if count:
                yield LinePage(text, count, partial(self._db.rows, *self.page_statement(
                    table, operations, after, (last,))))
            if count < page:
                return
            after = (last,)

    def joined_page(self, table: PortableTable, operations: int | None, after: Sequence[Any] | None,
                    upto: Sequence[Any] | None) -> tuple[str, Params]:
        where, params = self.key_range(table, after, upto)
        return self._joined(table, operations, where), params

    def _joined(self, table: PortableTable, operations: int | None, where: str, limit: str = "",
                extra: str = "") -> str:
        """The page's count and lines joined, then ``extra`` aggregates, over the rows in
        ``where``, in order, at most ``limit``."""
        keys = ", ".join(table.order)
        return (f"SELECT count(*), CAST(group_concat(line, '') AS BLOB){extra} FROM "
                f"(SELECT {keys}, {self.line_sql(table, operations)} AS line FROM {self.source(table)} "
                f"WHERE {where} ORDER BY {keys} {limit})")

    def integer_key(self, table: PortableTable) -> str | None:
        """A key of one column declared an integer (sgam writes integers there)."""
        if len(table.order) != 1:
            return None
        declared = self._declared_columns(table.name).get(table.order[0])
        return table.order[0] if declared is not None and "INT" in declared.type else None

    def instant(self, column: str) -> str:
        """Whole seconds rounded down (``%`` truncates towards zero), then the microseconds
        (``datetime`` costs a third of ``strftime`` with a pattern)."""
        return f"'\"' || {_seconds(column)} || '.' || substr(1000000 + {_micros(column)}, 2) || 'Z\"'"

    def plain(self, table: PortableTable, column: str) -> str:
        """``json_quote`` escapes text as Python's encoder does; a real goes as its 15-digit
        text where that reads back as the same number (then it is Python's shortest text).
        A column of text affinity holds no number (SQLite stores one as its text)."""
        if self._text_affinity(table.name, column):
            return f"json_quote({column})"
        real = f"printf('%!.15g', {column})"
        return (f"CASE typeof({column}) WHEN 'real' THEN CASE WHEN {REAL_RANGE.format(c=column)} "
                f"AND CAST({real} AS REAL) = {column} THEN {real} ELSE char(1) END ELSE json_quote({column}) END")

    def line_expression(self, table: PortableTable, operations: int | None) -> str:
        """One ``printf`` (a chain of ``||`` copies the growing line at every step); an
        instant that is never NULL is two of its arguments."""
        pattern: list[str] = []
        fields: list[str] = []
        for column in table.columns:
            if column in table.times and self._required(table.name, column):
                pattern.append(f'"{column}":"%s.%06dZ"')
                fields += [_seconds(column), _micros(column)]
            else:
                pattern.append(f'"{column}":%s')
                fields.append(self._field(table, column, operations))
        return (f"printf('{{\"table\":\"{table.name}\",\"row\":{{{','.join(pattern)}}}}}%s', "
                f"{', '.join(fields)}, {self.newline})")

    def _required(self, table: str, column: str) -> bool:
        return self._declared_columns(table)[column].required

    def _rowid_key(self, table: str) -> set[str]:
        """The column of ``table`` that is its rowid, if one is (an ``INTEGER PRIMARY KEY``)."""
        keys = [(name, column) for name, column in self._declared_columns(table).items() if column.key]
        return {keys[0][0]} if len(keys) == 1 and keys[0][1].type == "INTEGER" else set()

    def _text_affinity(self, table: str, column: str) -> bool:
        """SQLite's rule: a declared type naming CHAR, CLOB or TEXT, and not INT."""
        declared = self._declared_columns(table).get(column)
        kind = "" if declared is None else declared.type
        return "INT" not in kind and any(name in kind for name in ("CHAR", "CLOB", "TEXT"))

    def _declared_columns(self, table: str) -> dict[str, _Declared]:
        """Each column's declaration, read once per table."""
        if table not in self._declared:
            self._declared[table] = {str(row[1]): _Declared(str(row[2]).upper(), bool(row[3]), bool(row[5]))
                                     for row in self._db.rows(f"PRAGMA table_info({table})")}
        return self._declared[table]

    def imported(self) -> None:
        self._cache.clear()
