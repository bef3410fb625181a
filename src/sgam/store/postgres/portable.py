"""PostgreSQL's part of carrying a tenant's rows: numbering imported operations from the
operations' identity sequence and forgetting the process's cached schemas of the tenant."""

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

    def reserve_operation_seqs(self, count: int) -> list[int]:
        """``count`` values of the identity sequence: every later operation is numbered
        after them (the application role may take values, never set the sequence)."""
        rows = self._db.rows("SELECT nextval(pg_get_serial_sequence('operations', 'seq')) "
                             "FROM generate_series(1, ?)", (count,))
        return sorted(int(row[0]) for row in rows)

    def imported(self) -> None:
        for cache in (self._schemas, self._quiet):
            if cache is not None:
                cache.pop(self.tenant, None)
