"""SQLite's part of carrying a tenant's rows: the spellings of an export line's instants
and plain values, and forgetting what the connection remembers of the tenant once an
import wrote it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from .._portable import PortableTable
from .._sql.portable import PortableRows
from .._sql.portable_lines import REAL_RANGE, LinePage
from .._sql.session import Session
from .cache import Cache


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
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
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

    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[LinePage]:
        """A table paged by one column: each page's lines joined by SQLite (``group_concat``)
        into one value, with the page's last key, instead of a Python row per line (a
        fifth of the export's time at 100k rows). SQLite before 3.44 has no ``ORDER BY``
        inside an aggregate: the page is a subquery with ``ORDER BY`` and ``LIMIT``, which
        SQLite does not flatten into the aggregate and hands over in its order (the tests
        hold each page to the rows read one by one)."""
        if len(table.order) != 1:
            yield from super().record_lines(table, operations, page)
            return
        key = table.order[0]
        after: tuple[int | str] | None = None
        while True:
            where, params = self.key_range(table, after, None)
            found = self._db.row(
                f"SELECT count(*), max({key}), CAST(group_concat(line, '') AS BLOB) FROM "
                f"(SELECT {key}, {self.line_sql(table, operations)} AS line FROM {self.source(table)} "
                f"WHERE {where} ORDER BY {key} LIMIT {int(page)})", params)
            assert found is not None
            count, last, text = found
            if count:
                yield LinePage(text, count, partial(self._db.rows, *self.page_statement(
                    table, operations, after, (last,))))
            if count < page:
                return
            after = (last,)

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
