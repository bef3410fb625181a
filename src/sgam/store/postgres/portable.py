"""PostgreSQL's part of carrying a tenant's rows: forgetting the process's cached schemas
of the tenant once an import wrote them."""

from __future__ import annotations

from typing import Any

from .._sql.portable import PortableRows
from .._sql.session import Session


class PostgresPortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, forget: dict[str, Any] | None = None,
                 quiet: dict[str, int] | None = None) -> None:
        super().__init__(db, tenant)
        self._schemas = forget
        self._quiet = quiet

    def imported(self) -> None:
        for cache in (self._schemas, self._quiet):
            if cache is not None:
                cache.pop(self.tenant, None)
