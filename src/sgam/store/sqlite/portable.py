"""SQLite's part of carrying a tenant's rows: the spellings of an export line's instants
and plain values, and forgetting what the connection remembers of the tenant once an
import wrote it."""

from __future__ import annotations

from .._portable import PortableTable
from .._sql.portable import PortableRows
from .._sql.portable_lines import REAL_RANGE
from .._sql.session import Session
from .cache import Cache


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
        self._cache = cache

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
