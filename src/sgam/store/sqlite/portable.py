"""SQLite's part of carrying a tenant's rows: numbering imported operations and forgetting
what the connection remembers of the tenant."""

from __future__ import annotations

from .._sql.portable import PortableRows
from .._sql.session import Session
from .cache import Cache


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
        self._cache = cache

    def reserve_operation_seqs(self, count: int) -> list[int]:
        """The next ``count`` numbers of the operations' AUTOINCREMENT counter, taken now:
        the unit of work holds the database, so nothing else numbers meanwhile."""
        row = self._db.row("SELECT seq FROM sqlite_sequence WHERE name = 'operations'")
        first = (int(row[0]) if row else 0) + 1
        if row:
            self._db.run("UPDATE sqlite_sequence SET seq = ? WHERE name = 'operations'", (first + count - 1,))
        else:
            self._db.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('operations', ?)", (first + count - 1,))
        return list(range(first, first + count))

    def imported(self) -> None:
        self._cache.clear()
