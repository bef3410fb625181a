"""PostgreSQL's part of carrying a tenant's rows: the spellings of an export line's
instants and plain values, and forgetting the process's cached schemas of the tenant once
an import wrote them."""

from __future__ import annotations

from typing import Any

from .._portable import PortableTable
from .._sql.portable import PortableRows
from .._sql.portable_lines import REAL_RANGE
from .._sql.session import Session

KEYS_DEFERRED = "sgam.keys_deferred"
"""The setting under which the operations' insert trigger lists no ledger key (the
baseline's ``operations_key_insert``)."""


class PostgresPortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, forget: dict[str, Any] | None = None,
                 quiet: dict[str, int] | None = None) -> None:
        super().__init__(db, tenant)
        self._schemas = forget
        self._quiet = quiet
        self._reals: frozenset[tuple[str, str]] | None = None

    newline = "chr(10)"

    def instant(self, column: str) -> str:
        return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

    def plain(self, table: PortableTable, column: str) -> str:
        """``to_json`` escapes text as Python's encoder does. A double's text is its
        shortest (``extra_float_digits`` 1, the default; checked by reading it back),
        with ``.0`` added to a whole number as Python writes it."""
        if (table.name, column) not in self._real_columns():
            return f"COALESCE(to_json({column})::text, 'null')"
        return (f"CASE WHEN {column} IS NULL THEN 'null' WHEN {REAL_RANGE.format(c=column)} "
                f"AND {column}::text::float8 = {column} THEN {column}::text "
                f"|| CASE WHEN {column} = trunc({column}) THEN '.0' ELSE '' END END")

    def _real_columns(self) -> frozenset[tuple[str, str]]:
        if self._reals is None:
            found = self._db.rows("SELECT table_name, column_name FROM information_schema.columns "
                                  "WHERE table_schema = current_schema() AND data_type IN ('double precision', 'real')")
            self._reals = frozenset((str(name), str(column)) for name, column in found)
        return self._reals

    def importing(self) -> None:
        """The operations' statement trigger lists no key while the import runs (a
        statement per batch of operations, each reading its batch's keys): ``imported``
        lists them all in one statement. ``SET LOCAL``, as the tenant is set, reaches a
        distributed database's workers too."""
        self._db.run(f"SET LOCAL {KEYS_DEFERRED} = on")

    def imported(self) -> None:
        self._db.run("INSERT INTO ledger_keys (tenant, subject, attribute) "
                     "SELECT DISTINCT tenant, subject, attribute FROM operations WHERE tenant = ?", (self.tenant,))
        self._db.run(f"SET LOCAL {KEYS_DEFERRED} = off")
        for cache in (self._schemas, self._quiet):
            if cache is not None:
                cache.pop(self.tenant, None)
