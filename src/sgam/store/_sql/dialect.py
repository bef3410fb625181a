"""What differs between the databases sgam runs on, one ``Dialect`` value each.

A statement is written once, in SQLite's spelling (``_sql/``); the backends differ only in
their SQL files and in what a dialect says: how a statement's placeholders are spelled,
how the tenant is set (row-level security reads it), how a batch of rows is inserted, how
a read's snapshot is opened and whether a unit of work's pipeline needs an explicit
``BEGIN``. A backend picks its dialect once, when it opens (``dialect_of`` on
PostgreSQL: a database with the ``citus`` extension gets ``CITUS``), and hands it to
every session, read and unit of work it makes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_HINT = re.compile(r"\s+INDEXED BY \w+")
_NATIVE: dict[str, str] = {}
_NATIVE_LIMIT = 4096


def to_format(sql: str) -> str:
    """A portable statement in psycopg's spelling: ``%s`` placeholders, a literal ``%``
    doubled, ``INDEXED BY`` hints (SQLite's) dropped. Remembered: statements repeat."""
    found = _NATIVE.get(sql)
    if found is None:
        found = _HINT.sub("", sql).replace("%", "%%").replace("?", "%s")
        if len(_NATIVE) >= _NATIVE_LIMIT:
            _NATIVE.clear()
        _NATIVE[sql] = found
    return found


@lru_cache(maxsize=64)
def to_numbered(sql: str) -> str:
    """A portable statement with numbered placeholders (``$1``, ``$2``…), as the server
    takes it: for psycopg's raw cursor, which sends a statement as it is. Remembered:
    the statements it serves (wide multi-row inserts) repeat."""
    parts = _HINT.sub("", sql).split("?")
    return "".join(part + f"${number}" for number, part in enumerate(parts[:-1], start=1)) + parts[-1]


def quoted(value: str) -> str:
    """``value`` as a PostgreSQL string literal, right whatever
    ``standard_conforming_strings`` says: quotes doubled, and with a backslash the
    escape form (``E'...'``), backslashes doubled. (Tenant names hold neither.)"""
    if "\0" in value:
        raise ValueError("a string literal cannot hold a NUL character")
    body = value.replace("'", "''")
    return "E'" + body.replace("\\", "\\\\") + "'" if "\\" in value else "'" + body + "'"


@lru_cache(maxsize=1024)
def _set_tenant(tenant: str) -> str:
    return "SET LOCAL sgam.tenant = " + quoted(tenant)


@lru_cache(maxsize=512)
def _with_rows(head: str, width: int, count: int, placeholder: str) -> str:
    """``head`` and ``count`` rows of ``width`` parameters (remembered: batch sizes repeat)."""
    row = "(" + ", ".join([placeholder] * width) + ")"
    return f"{head} VALUES {', '.join([row] * count)}"


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one kind of database takes the statements written once."""

    name: str
    placeholder: str
    """What a statement given to the driver marks a parameter with."""
    max_parameters: int
    """The most parameters one statement may bind."""
    sets_tenant: bool
    """Whether a unit of work sets the tenant first (``set_tenant``): row-level security
    reads it. SQLite has none; every statement names the tenant it reads."""
    begin: str
    """What opens a unit of work's transaction (a write, a read of one statement)."""
    explicit: bool
    """Whether a unit of work sends ``begin`` and ``COMMIT`` at all. PostgreSQL does not:
    the implicit transaction of its pipeline serves, committed by the pipeline's Sync.
    Citus sends a ``SET LOCAL`` on to its workers only inside an explicit transaction,
    so there a pipeline is wrapped in them (still one round trip)."""
    snapshot: str
    """What opens a read: one transaction, so every statement of it sees one snapshot."""
    copies_between_tables: bool = True
    """Whether ``INSERT … SELECT`` from one of a tenant's tables into another whose key is
    drawn by the database (an identity column) runs where the rows are. Citus plans it by
    pulling the rows to the coordinator and copying them out, and row-level security
    refuses ``COPY FROM``: there derived rows are written by the per-batch triggers."""
    exports_snapshots: bool = False
    """Whether other connections can take up a read's snapshot (``pg_export_snapshot``),
    so that an export builds its lines on several at once. Citus's coordinator would
    hand over its own snapshot, not its workers'."""

    def native(self, sql: str) -> str:
        """The driver's text of a portable statement."""
        return sql if self.placeholder == "?" else to_format(sql)

    def set_tenant(self, tenant: str) -> str:
        """The first statement of a tenant's transaction, so that row-level security admits
        its rows: ``SET LOCAL``, which ends with the transaction, rather than a
        ``set_config()`` call, which Citus would not send on to the workers whose shards'
        policies read it. ``SET`` takes no parameter, so the tenant is quoted here; send it
        unprepared (``prepare=False``), or each tenant would hold a prepared statement."""
        if not self.sets_tenant:
            raise ValueError(f"{self.name} sets no tenant: its statements name it")
        return _set_tenant(tenant)

    def batches(self, head: str, rows: Sequence[tuple[Any, ...]], first: str | None = None,
                prefix: tuple[Any, ...] = (), *, portable: bool = False) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """The statements and parameters that insert ``rows`` (each of the same width)
        under ``head`` (``INSERT INTO t (columns)``), as few multi-row ``VALUES`` as the
        parameter limit allows; the first statement may be ``first`` (a head that also
        binds ``prefix`` before the rows, as a held operation's ``WITH``). The statements
        are the driver's text, or ``portable`` ones (``?``) for a session to run.

        Multi-row ``VALUES`` rather than ``INSERT … SELECT … FROM unnest(arrays)``: Citus
        turns an ``INSERT … SELECT`` from a function into ``COPY`` on the workers, where
        row-level security is not checked; PostgreSQL alone takes either at one cost."""
        if not rows:
            return
        width = len(rows[0])
        mark = "?" if portable else self.placeholder
        size = max(1, (self.max_parameters - len(prefix)) // width)
        for start in range(0, len(rows), size):
            chunk = rows[start:start + size]
            flat = tuple(value for row in chunk for value in row)
            if start == 0 and first is not None:
                yield _with_rows(first, width, len(chunk), mark), (*prefix, *flat)
            else:
                yield _with_rows(head, width, len(chunk), mark), flat


SQLITE = Dialect(
    name="SQLite", placeholder="?", max_parameters=32_766, sets_tenant=False,
    begin="BEGIN IMMEDIATE", explicit=True, snapshot="BEGIN",
)
"""One file, one writer: a write takes the database's write lock when it begins (no
upgrade from a read lock to deadlock on), a read is a deferred transaction."""

POSTGRES = Dialect(
    name="PostgreSQL", placeholder="%s", max_parameters=65_535, sets_tenant=True,
    begin="BEGIN", explicit=False, snapshot="BEGIN ISOLATION LEVEL REPEATABLE READ", exports_snapshots=True,
)
"""A read is one REPEATABLE READ transaction (it only reads, so it never fails to
serialise); a unit of work is the READ COMMITTED implicit transaction of its pipeline."""

CITUS = Dialect(
    name="Citus", placeholder="%s", max_parameters=65_535, sets_tenant=True,
    begin="BEGIN", explicit=True, snapshot="BEGIN ISOLATION LEVEL REPEATABLE READ",
    copies_between_tables=False,
)
"""PostgreSQL distributed by tenant: as PostgreSQL, but a unit of work's pipeline is
wrapped in ``BEGIN`` and ``COMMIT`` (still one round trip), inside which the coordinator
sends the tenant's ``SET LOCAL`` on to the workers."""
