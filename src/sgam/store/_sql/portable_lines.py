"""Export lines written by the database: each row's record of the export format as the
SELECT's text, so that an export moves text from the database to the file instead of
building it value by value in Python.

The line is the one ``sgam.portability.format.RowEncoder`` writes, byte for byte (a test
holds the two equal): ``{"table":…,"row":{…}}`` with the columns in their order, instants
as RFC 3339 UTC with microseconds, flags as ``true``/``false``, canonical JSON values as
stored, text JSON-escaped. Where the database cannot give the same text (a real number
whose shortest decimal text it does not write the way Python does) the field is
``UNWRITTEN`` and the caller encodes that row itself: a line never holds that character
raw (JSON escapes it), and a field that is never NULL lets a backend build the line in
one call instead of a chain of ``||``. A backend supplies the few spellings that differ
(``instant``, ``plain``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._portable import RANKED, PortableTable
from .ledger import Scoped
from .session import Params, Row

UNWRITTEN = b"\x01"
"""What a line the database could not write holds: U+0001, which JSON always escapes."""

REAL_RANGE = "({c} = 0 OR (abs({c}) >= 0.0001 AND abs({c}) < 1e15))"
"""Real numbers Python writes without an exponent (``repr`` switches to one below 1e-4
and from 1e16; 1e15 keeps clear of the databases' own switch): outside it, Python
encodes the row."""


@dataclass(frozen=True, slots=True)
class LinePage:
    """Whole lines of a table in ``order``, as UTF-8: what an export writes as it is,
    unless it holds ``UNWRITTEN``; then ``keyed`` gives the page's rows, each its paging
    key's columns and then its line, so that the caller encodes the lines left to it."""

    text: bytes
    lines: int
    keyed: Callable[[], list[Row]]


def page_of(rows: list[Row]) -> LinePage:
    """A page of rows that are already each a key and a line."""
    return LinePage(b"".join([row[-1] for row in rows]), len(rows), lambda: rows)


class LineStatements(Scoped, ABC):
    """The SELECT of a table's lines; a backend's rows class gives the spellings."""

    newline = "char(10)"
    _counted: dict[str, int] | None = None
    """What ``count_rows`` counted in this read, by table."""
    _spelled: dict[tuple[str, int | None], str] | None = None
    """Each table's ``line_sql`` in this read."""

    @abstractmethod
    def instant(self, column: str) -> str:
        """SQL for the JSON string (quotes included) of an instant column's RFC 3339 text,
        NULL for NULL."""

    @abstractmethod
    def plain(self, table: PortableTable, column: str) -> str:
        """SQL for the JSON text of a column carried as it is: ``null`` for NULL, ``UNWRITTEN``
        where the database cannot write what Python writes."""

    @abstractmethod
    def utf8(self, text: str) -> str:
        """SQL for the UTF-8 bytes of the text ``text`` (NULL for NULL): lines reach the
        file as the database sent them, never decoded and encoded again."""

    def source(self, table: PortableTable) -> str:
        """What a read of ``table``'s rows in ``order`` selects from (a backend may add a
        hint for the plan)."""
        return table.name

    def renders(self, table: PortableTable, operations: int | None) -> bool:
        """Whether the database writes ``table``'s lines: not for bytes (base64) nor for a
        table whose rows are ranked or name another's rank (the caller keeps the ranks), nor
        for one naming operations unless they are numbered 1..``operations`` without a gap
        (then an operation's rank in the log is its number)."""
        if table.blobs or table.parents or table.name in RANKED:
            return False
        return operations is not None or not (table.operations or table.after)

    def _field(self, table: PortableTable, column: str, operations: int | None) -> str:
        if column in table.times:
            return f"COALESCE({self.instant(column)}, 'null')"
        if column in table.flags:
            return f"CASE WHEN {column} IS NULL THEN 'null' WHEN {column} THEN 'true' ELSE 'false' END"
        if column in table.values:
            return f"COALESCE({column}, 'null')"
        if column in table.operations or column in table.after:
            return (f"CASE WHEN {column} IS NULL THEN 'null' WHEN {column} > {int(operations or 0)} "
                    f"THEN '{int(operations or 0)}' ELSE CAST({column} AS TEXT) END")
        return self.plain(table, column)

    def line_sql(self, table: PortableTable, operations: int | None) -> str:
        """The SQL expression of a row's line (its trailing newline included), spelled once
        a table and read: every page's statement names it."""
        if self._spelled is None:
            self._spelled = {}
        spelled = self._spelled.get((table.name, operations))
        if spelled is None:
            spelled = self._spelled[(table.name, operations)] = self.line_expression(table, operations)
        return spelled

    def line_expression(self, table: PortableTable, operations: int | None) -> str:
        """``line_sql`` spelled out. The text between two fields is one literal
        (``,"name":``): a concatenation fewer a field, which the database does a row. The
        pieces are joined pairwise, as a balanced tree of ``||``: a row's concatenations
        copy each piece about log n times instead of up to n times."""
        before = [f'{{"table":"{table.name}","row":{{', *("," * (len(table.columns) - 1))]
        pieces = [piece for text, column in zip(before, table.columns, strict=True)
                  for piece in (f"'{text}\"{column}\":'", f"({self._field(table, column, operations)})")]
        pieces += ["'}}'", self.newline]
        while len(pieces) > 1:
            pieces = [f"({' || '.join(pieces[start:start + 2])})" for start in range(0, len(pieces), 2)]
        return pieces[0]

    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[LinePage]:
        """``table``'s lines in ``order``, ``page`` rows at a time."""
        selected = f"{', '.join(table.order)}, {self.utf8(self.line_sql(table, operations))}"
        yield from (page_of(rows) for rows in self.keyset_pages(table, selected, page) if rows)

    def keyset_pages(self, table: PortableTable, selected: str, page: int) -> Iterator[list[Row]]:
        """``selected`` (the paging key's columns first) of the tenant's rows of ``table``
        in ``order``, ``page`` rows a statement, each page after the last one's key."""
        keys = ", ".join(table.order)
        after: Sequence[Any] | None = None
        while True:
            where, params = self.key_range(table, after, None)
            rows = self._db.rows(f"SELECT {selected} FROM {self.source(table)} WHERE {where} "
                                 f"ORDER BY {keys} LIMIT {int(page)}", params)
            yield rows
            if len(rows) < page:
                return
            after = rows[-1][:len(table.order)]

    def page_bounds_sql(self, table: PortableTable, page: int) -> str:
        """The SELECT of the paging key and place of every ``page``-th row of ``table`` in
        ``order`` and of its last row (``page_bounds``): one pass over the key's index."""
        keys = ", ".join(table.order)
        return (f"SELECT {keys}, place FROM (SELECT {keys}, row_number() OVER paged AS place, "
                f"lead(1) OVER paged IS NULL AS last FROM {table.name} WHERE tenant = ? "
                f"WINDOW paged AS (ORDER BY {keys})) ranked WHERE place % {int(page)} = 0 OR last ORDER BY {keys}")

    @staticmethod
    def page_bounds(table: PortableTable, page: int, ranked: list[Row]) -> tuple[list[Row], int]:
        """From ``page_bounds_sql``'s rows: the key every page ends with but the last (the
        pages between them can be built apart, each by a statement of its own) and how
        many rows the table holds."""
        keys = len(table.order)
        return [row[:keys] for row in ranked if int(row[keys]) % page == 0], int(ranked[-1][keys]) if ranked else 0

    def integer_key(self, table: PortableTable) -> str | None:
        """``table``'s paging key when it is one column of integers (then its pages can go
        by key value: ``PortableRows.count_rows``)."""
        return None

    def key_ends_sql(self, table: PortableTable, key: str) -> tuple[str, Params]:
        """The SELECT of how many rows of the tenant ``table`` holds and its lowest and
        highest ``key``: one pass over an index of the tenant's rows."""
        return f"SELECT count(*), min({key}), max({key}) FROM {table.name} WHERE tenant = ?", (self.tenant,)

    @abstractmethod
    def joined_page(self, table: PortableTable, operations: int | None, after: Sequence[Any] | None,
                    upto: Sequence[Any] | None) -> tuple[str, Params]:
        """The SELECT of one row for the page in ``key_range``: how many lines and their
        text joined in order as UTF-8 (NULL for none), which the database hands over as
        one value instead of a row per line (a lane builds a page so)."""

    def key_range(self, table: PortableTable, after: Sequence[Any] | None,
                  upto: Sequence[Any] | None) -> tuple[str, tuple[Any, ...]]:
        """The WHERE of the tenant's rows of ``table`` whose paging key is past ``after``
        and up to ``upto`` (None: no bound), and its parameters."""
        keys = ", ".join(table.order)
        marks = ", ".join("?" * len(table.order))
        where = "tenant = ?" + ("" if after is None else f" AND ({keys}) > ({marks})")
        where += "" if upto is None else f" AND ({keys}) <= ({marks})"
        return where, (self.tenant, *(after or ()), *(upto or ()))

    def page_statement(self, table: PortableTable, operations: int | None, after: Sequence[Any] | None,
                       upto: Sequence[Any] | None) -> tuple[str, tuple[Any, ...]]:
        """The SELECT of ``table``'s rows in ``key_range``, each its key's columns and its
        line as UTF-8, in ``order``."""
        keys = ", ".join(table.order)
        where, params = self.key_range(table, after, upto)
        return (f"SELECT {keys}, {self.utf8(self.line_sql(table, operations))} FROM {self.source(table)} "
                f"WHERE {where} ORDER BY {keys}", params)

    def stored_row(self, table: PortableTable, key: Sequence[Any]) -> Row:
        """One row as ``table_rows`` gives it, by its paging key."""
        match = " AND ".join(f"{column} = ?" for column in table.order)
        row: Row | None = self._db.row(f"SELECT {', '.join((*table.order, *table.columns))} FROM {table.name} "
                                       f"WHERE tenant = ? AND {match}", (self.tenant, *key))
        assert row is not None
        return row

    def operation_numbers(self) -> tuple[int, int]:
        """How many operations the tenant has and the highest number among them (the
        count from ``count_rows`` when it counted them: the highest is then one step down
        the index, not a pass over the tenant's operations)."""
        if self._counted is not None and "operations" in self._counted:
            row = self._db.row("SELECT max(seq) FROM operations WHERE tenant = ?", (self.tenant,))
            return self._counted["operations"], int(row[0] or 0) if row else 0
        row = self._db.row("SELECT count(*), max(seq) FROM operations WHERE tenant = ?", (self.tenant,))
        return (int(row[0]), int(row[1] or 0)) if row else (0, 0)
