"""PostgreSQL's part of carrying a tenant's rows: the spellings of an export line's
instants and plain values, and forgetting the process's cached schemas of the tenant once
an import wrote them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .._portable import PortableTable
from .._sql.portable import PAGE, PortableRows
from .._sql.portable_lines import REAL_RANGE, LinePage, page_of
from .._sql.session import Params, Session
from .lanes import FLOATS, SnapshotLanes
from .session import PostgresSession

REALS = frozenset({"double precision", "real"})
INTEGERS = frozenset({"smallint", "integer", "bigint"})
"""Whose text is already their JSON text."""

KEYS_DEFERRED = "sgam.keys_deferred"
"""The setting under which the operations' insert trigger lists no ledger key (the
baseline's ``operations_key_insert``)."""


class PostgresPortableRows(PortableRows):
    def __init__(self, db: Session, tenant: str, forget: dict[str, Any] | None = None,
                 quiet: dict[str, int] | None = None, lanes: Callable[[], SnapshotLanes | None] | None = None) -> None:
        super().__init__(db, tenant, lanes)
        self._schemas = forget
        self._quiet = quiet
        self._types: dict[tuple[str, str], str] | None = None
        self._version: int | None = None
        self._floats_set = False
        self._cursors = 0

    newline = "chr(10)"

    def instant(self, column: str) -> str:
        """``to_char`` writes the quotes too (a pattern's ``\\"``): two concatenations
        fewer a row for each instant."""
        return f"to_char({column} AT TIME ZONE 'UTC', E'\\\\\"YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\\\\\"')"

    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[LinePage]:
        """A table of more than one page, in a read whose snapshot other connections can
        take up: its pages built on the read's lanes (``lanes.py``) side by side. Otherwise
        pages of one cursor over the lines, the next page asked for before this one is
        given: the server builds it while the caller writes this one."""
        if not isinstance(self._db, PostgresSession):
            yield from super().record_lines(table, operations, page)
            return
        lanes = self.lanes()
        bounds = self._bounds.pop(table.name, None) if page == PAGE else None
        if lanes is not None and bounds is None:
            bounds, _ = self.page_bounds(table, page, self._db.rows(self.page_bounds_sql(table, page), (self.tenant,)))
        if lanes is not None and bounds:
            yield from self.laned_lines(table, operations, bounds, lanes)
            return
        self._cursors += 1  # a name of its own: a walk left unfinished keeps its cursor open
        name = f"sgam_lines_{self._cursors}"
        keys = ", ".join(table.order)
        line = self.utf8(self.line_sql(table, operations))
        self._db.run(f"DECLARE {name} NO SCROLL CURSOR FOR SELECT {keys}, {line} FROM {self.source(table)} "
                     f"WHERE tenant = ? ORDER BY {keys}", (self.tenant,))
        fetch = f"FETCH FORWARD {int(page)} FROM {name}"
        sent = self._db.send(fetch)
        while True:
            rows = sent.fetchall()
            if len(rows) == page:
                sent = self._db.send(fetch)
            if rows:
                yield page_of(rows)
            if len(rows) < page:
                break
        self._db.run(f"CLOSE {name}")

    def joined_page(self, table: PortableTable, operations: int | None, after: Sequence[Any] | None,
                    upto: Sequence[Any] | None) -> tuple[str, Params]:
        where, params = self.key_range(table, after, upto)
        return (f"SELECT count(*), string_agg({self.line_sql(table, operations)}, '' ORDER BY "
                f"{', '.join(table.order)}) FROM {self.source(table)} WHERE {where}", params)

    def count_rows(self, tables: Sequence[PortableTable]) -> dict[str, int]:
        """Where the lines are built on lanes: each table counted by the statement that
        finds its pages' bounds, kept for ``record_lines``, instead of a count and later a
        second pass over the same keys; the tables counted on the lanes side by side. A
        table keyed by dense integers is counted with its key's ends (``value_bounds``),
        any other by ``page_bounds_sql``'s window; one keyed by sparse integers is left
        to ``record_lines``, which runs the window then."""
        lanes = self.lanes()
        if lanes is None or not tables:
            return super().count_rows(tables)
        keys = [self.integer_key(table) for table in tables]
        statements = [(self._db.dialect.native(sql), params) for sql, params in (
            self.key_ends_sql(table, key) if key is not None else (self.page_bounds_sql(table, PAGE), (self.tenant,))
            for table, key in zip(tables, keys, strict=True))]
        counts: dict[str, int] = {}
        for table, key, found in zip(tables, keys, lanes.pages(statements, text_as_bytes=False), strict=True):
            if key is None:
                self._bounds[table.name], counts[table.name] = self.page_bounds(table, PAGE, found)
                continue
            count, low, high = found[0]
            counts[table.name] = int(count)
            bounds = self.value_bounds(int(count), low, high, PAGE)
            if bounds is not None:
                self._bounds[table.name] = bounds
        self._counted = counts
        return counts

    def integer_key(self, table: PortableTable) -> str | None:
        key = table.order[0] if len(table.order) == 1 else None
        return key if key is not None and self._column_types().get((table.name, key)) in INTEGERS else None

    def key_ends_sql(self, table: PortableTable, key: str) -> tuple[str, Params]:
        """The count a pass over an index's entries, the lowest and highest key an end of
        the key's index each (one aggregate of all three reads every row: at a million
        operations 0.12 s against 0.04 s)."""
        return (f"SELECT (SELECT count(*) FROM {table.name} WHERE tenant = ?), "
                f"(SELECT min({key}) FROM {table.name} WHERE tenant = ?), "
                f"(SELECT max({key}) FROM {table.name} WHERE tenant = ?)"), (self.tenant,) * 3

    def utf8(self, text: str) -> str:
        return f"convert_to({text}, 'UTF8')"

    def plain(self, table: PortableTable, column: str) -> str:
        """Text escaped as Python's encoder escapes it (``_escaping``); an integer's text is
        its JSON text. A double's text is its shortest exact decimal, Python's digits
        (``FLOATS``; before PostgreSQL 12 no setting gives that text, so it is read back to
        check), with ``.0`` added to a whole number as Python writes it."""
        kind = self._column_types().get((table.name, column))
        if kind in INTEGERS:
            return f"COALESCE({column}::text, 'null')"
        if kind not in REALS:
            return f"COALESCE({self._escaping()}({column})::text, 'null')"
        checked = "" if self._server_version() >= 120000 else f" AND {column}::text::float8 = {column}"
        return (f"CASE WHEN {column} IS NULL THEN 'null' WHEN {REAL_RANGE.format(c=column)}{checked} "
                f"THEN {column}::text || CASE WHEN {column} = trunc({column}) THEN '.0' ELSE '' END "
                "ELSE chr(1) END")

    def line_expression(self, table: PortableTable, operations: int | None) -> str:
        """The read's own lines are written under ``FLOATS`` too (its lanes took it up as
        they began)."""
        if not self._floats_set:
            self._db.run(FLOATS)
            self._floats_set = True
        return super().line_expression(table, operations)

    def _escaping(self) -> str:
        """What writes a text as a JSON string: ``JSON_SCALAR`` from PostgreSQL 17, which
        escapes as ``to_json`` does but looks up how to write its argument's type once a
        statement where ``to_json`` does so a row (a line's server time a tenth less at a
        million operations); ``to_json`` before it."""
        return "JSON_SCALAR" if self._server_version() >= 170000 else "to_json"

    def _server_version(self) -> int:
        if self._version is None:
            found = self._db.row("SELECT current_setting('server_version_num')::int")
            self._version = int(found[0]) if found is not None else 0
        return self._version

    def _column_types(self) -> dict[tuple[str, str], str]:
        if self._types is None:
            found = self._db.rows("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                  "WHERE table_schema = current_schema()")
            self._types = {(str(name), str(column)): str(kind) for name, column, kind in found}
        return self._types

    def importing(self) -> None:
        """The operations' statement trigger lists no key while the import runs (a
        statement per batch of operations, each reading its batch's keys): ``imported``
        lists them all in one statement. Where the database cannot copy between its
        tables in place (Citus), the trigger goes on listing them batch by batch."""
        if self._db.dialect.copies_between_tables:
            self._db.run(f"SET LOCAL {KEYS_DEFERRED} = on")

    def imported(self) -> None:
        if self._db.dialect.copies_between_tables:
            self._db.run("INSERT INTO ledger_keys (tenant, subject, attribute) "
                         "SELECT DISTINCT tenant, subject, attribute FROM operations WHERE tenant = ?",
                         (self.tenant,))
            self._db.run(f"SET LOCAL {KEYS_DEFERRED} = off")
        for cache in (self._schemas, self._quiet):
            if cache is not None:
                cache.pop(self.tenant, None)
