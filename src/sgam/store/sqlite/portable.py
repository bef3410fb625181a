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


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
        self._cache = cache

    def source(self, table: PortableTable) -> str:
        """A table paged by its rowid (an ``INTEGER PRIMARY KEY``) is read in rowid order,
        from the page's start on: the planner would otherwise take the tenant's index and
        sort all the tenant's rows for every page."""
        if len(table.order) == 1 and table.order[0] in _rowid_keys(self._db, table.name):
            return f"{table.name} NOT INDEXED"
        return table.name

    def instant(self, column: str) -> str:
        """Whole seconds rounded down (``%`` truncates towards zero), then the microseconds."""
        micros = f"(({column} % 1000000 + 1000000) % 1000000)"
        return (f"strftime('%Y-%m-%dT%H:%M:%S', ({column} - {micros}) / 1000000, 'unixepoch') "
                f"|| printf('.%06dZ', {micros})")

    def plain(self, table: PortableTable, column: str) -> str:
        """``json_quote`` escapes text as Python's encoder does; a real goes as its 15-digit
        text where that reads back as the same number (then it is Python's shortest text)."""
        real = f"printf('%!.15g', {column})"
        return (f"CASE typeof({column}) WHEN 'real' THEN CASE WHEN {REAL_RANGE.format(c=column)} "
                f"AND CAST({real} AS REAL) = {column} THEN {real} END ELSE json_quote({column}) END")

    def imported(self) -> None:
        self._cache.clear()
