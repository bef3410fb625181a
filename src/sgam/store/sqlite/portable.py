"""SQLite's part of carrying a tenant's rows: the spellings of an export line's instants
and plain values, and forgetting what the connection remembers of the tenant once an
import wrote it."""

from __future__ import annotations

from .._portable import PortableTable
from .._sql.portable import PortableRows
from .._sql.portable_lines import REAL_RANGE
from .._sql.session import Session
from .cache import Cache


def _rowid_keys(db: Session, table: str) -> set[str]:
    """The column of ``table`` that is its rowid, if one is (an ``INTEGER PRIMARY KEY``)."""
    columns = db.rows(f"PRAGMA table_info({table})")
    keys = [row for row in columns if row[5]]
    return {str(keys[0][1])} if len(keys) == 1 and str(keys[0][2]).upper() == "INTEGER" else set()


def _printf(pattern: str, fields: list[str]) -> str:
    """SQL for ``pattern`` (a literal holding no ``%`` but its ``%s``) with ``fields``."""
    literal = "'" + pattern.replace("'", "''") + "'"
    return f"printf({literal}, {', '.join(fields)})" if fields else literal


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
        self._cache = cache
        self._declared: dict[str, dict[str, str]] = {}

    def source(self, table: PortableTable) -> str:
        """A table paged by its rowid (an ``INTEGER PRIMARY KEY``) is read in rowid order,
        from the page's start on: the planner would otherwise take the tenant's index and
        sort all the tenant's rows for every page."""
        if len(table.order) == 1 and table.order[0] in _rowid_keys(self._db, table.name):
            return f"{table.name} NOT INDEXED"
        return table.name

    def utf8(self, text: str) -> str:
        return f"CAST({text} AS BLOB)"

    def instant(self, column: str) -> str:
        """Whole seconds rounded down (``%`` truncates towards zero), then the microseconds
        (``datetime`` costs a third of ``strftime`` with a pattern)."""
        micros = f"(({column} % 1000000 + 1000000) % 1000000)"
        return (f"replace(datetime(({column} - {micros}) / 1000000, 'unixepoch'), ' ', 'T') "
                f"|| '.' || substr(1000000 + {micros}, 2) || 'Z'")

    def plain(self, table: PortableTable, column: str) -> str:
        """``json_quote`` escapes text as Python's encoder does; a real goes as its 15-digit
        text where that reads back as the same number (then it is Python's shortest text).
        A column of text affinity holds no number (SQLite stores one as its text)."""
        if self._text_affinity(table.name, column):
            return f"json_quote({column})"
        real = f"printf('%!.15g', {column})"
        return (f"CASE typeof({column}) WHEN 'real' THEN CASE WHEN {REAL_RANGE.format(c=column)} "
                f"AND CAST({real} AS REAL) = {column} THEN {real} END ELSE json_quote({column}) END")

    def line_sql(self, table: PortableTable, operations: int | None) -> str:
        """One ``printf`` per run of fields that are never NULL (a chain of ``||`` copies the
        growing line at every step); a field that may be NULL is joined by ``||`` so that
        the line is NULL with it."""
        pieces: list[str] = []
        fields: list[str] = []
        pattern = f'{{"table":"{table.name}","row":{{'
        for index, column in enumerate(table.columns):
            pattern += ("," if index else "") + f'"{column}":'
            field = self._field(table, column, operations)
            if self._never_null(table, column):
                pattern, fields = pattern + "%s", [*fields, field]
                continue
            pieces += [_printf(pattern, fields), f"({field})"]
            pattern, fields = "", []
        pieces.append(_printf(pattern + "}}%s", [*fields, self.newline]))
        return " || ".join(pieces)

    def _never_null(self, table: PortableTable, column: str) -> bool:
        special = table.times | table.flags | table.values | table.operations | table.after
        return column in special or self._text_affinity(table.name, column)

    def _text_affinity(self, table: str, column: str) -> bool:
        """SQLite's rule: a declared type naming CHAR, CLOB or TEXT, and not INT."""
        if table not in self._declared:
            self._declared[table] = {str(row[1]): str(row[2]).upper()
                                     for row in self._db.rows(f"PRAGMA table_info({table})")}
        declared = self._declared[table].get(column, "")
        return "INT" not in declared and any(name in declared for name in ("CHAR", "CLOB", "TEXT"))

    def imported(self) -> None:
        self._cache.clear()
