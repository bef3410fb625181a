"""SQLite's part of carrying a tenant's rows: forgetting what the connection remembers of
the tenant once an import wrote it."""

from __future__ import annotations

from .._sql.portable import PortableRows
from .._sql.session import Session
from .cache import Cache


class SQLitePortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, cache: Cache) -> None:
        super().__init__(db, tenant)
        self._cache = cache

    def imported(self) -> None:
        self._cache.clear()
