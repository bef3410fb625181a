"""What a statement written once needs from a backend's connection.

Portable statements are written in SQLite's spelling: ``?`` placeholders, optional
``INDEXED BY`` hints, times as integer microseconds. Each backend hands its tenant scope
a ``Session`` that runs them natively through its database's ``Dialect``
(``dialect.py``): SQLite as they are, PostgreSQL with ``%s`` placeholders, without the
hints, with times bound as ``timestamptz`` and with ``RETURNING`` where a driver counter
is missing in pipeline mode. A few functions are spelled differently on each side; a
session names them (``find``, ``char``, ``span``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .._requests import ReadAhead
    from .dialect import Dialect

Row = tuple[Any, ...]
Params = Sequence[Any]

CHUNK = 500
"""Values bound in one ``IN (...)`` list: well below every backend's parameter limit."""


class Session(Protocol):
    """One connection (or cursor) inside a tenant's transaction or read."""

    dialect: Dialect
    """The database's dialect: placeholders, the tenant, batches, transactions."""
    find: str
    """The SQL function giving a substring's 1-based position (0 if absent)."""
    holds_bytes: str
    """A condition (``{}``: a binary column; one parameter, the bytes) that the column
    contains those bytes."""
    char: str
    """The SQL function turning a code point into a one-character string."""
    true: str
    """The literal a boolean column holds when true (as partial indexes name it)."""
    bytewise: str
    """What follows a text column so that it compares by code point, as an index of
    prefixes needs ('' on SQLite, whose text compares so; ``COLLATE "C"`` on PostgreSQL)."""
    false: str
    locking: str
    """What follows a SELECT so that the rows it reads stay the transaction's until it ends
    ('' on SQLite, whose write transaction holds the database; ``FOR UPDATE`` on PostgreSQL)."""

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        """Run a statement and return every row it produced."""
        ...

    def row(self, sql: str, params: Params = ()) -> Row | None:
        """Run a statement and return its first row, if any."""
        ...

    def answer(self, request: ReadAhead, sql: str, params: Params = ()) -> list[Row]:
        """The rows of ``sql``, the statement that answers ``request``: a session that sent
        it ahead (``Reader.prefetch``) takes what came back instead of asking again."""
        ...

    def run(self, sql: str, params: Params = ()) -> None:
        """Run a statement whose result nobody reads (PostgreSQL may not wait for it)."""
        ...

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""
        ...

    def count(self, sql: str, params: Params = ()) -> int:
        """Run an UPDATE or DELETE and return how many rows it touched."""
        ...

    def insert(self, sql: str, params: Params, key: str) -> int:
        """Run an INSERT of one row and return the value of its generated column ``key``."""
        ...

    def span(self, column: str) -> str:
        """SQL for a duration held as microseconds in ``column``, to add to a time."""
        ...

    def moment(self, value: int | None) -> Any:
        """A time (microseconds since the epoch, UTC) as this backend binds it."""
        ...


def chunks(values: Sequence[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    """Consecutive slices of ``values`` of at most ``size`` items."""
    for start in range(0, len(values), size):
        yield list(values[start:start + size])


def in_list(column: str, count: int) -> str:
    """``column IN (?, ?, ...)`` with ``count`` portable placeholders."""
    return f"{column} IN ({', '.join('?' * count)})"
