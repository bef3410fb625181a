"""The PostgreSQL side of the dialect layer: a portable statement becomes a native one
through the database's dialect (``_sql/dialect.py``), times are bound as ``timestamptz``
and counts come back through ``RETURNING``, because a pipeline has no row count to give."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import psycopg
from psycopg.pq import Format

from .._requests import ReadAhead
from .._sql.dialect import POSTGRES, Dialect, to_numbered
from .._sql.session import Params, Row
from .adapters import Micros

Cursor = psycopg.Cursor[tuple[Any, ...]]
RawCursor = psycopg.RawCursor[tuple[Any, ...]]

WIDE = 50
"""Parameters beyond which psycopg splits a statement's ``%s`` placeholders again at
every execution instead of once (its cache of converted statements stops there): a
statement binding more (a multi-row insert, as an import sends by the hundred) goes
numbered, ``$1``…, on a raw cursor, which sends it as it is."""


class Answered:
    """Rows a statement would return, already at hand: a session without a pipeline to send
    into ran the statement at once."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list[Row]) -> None:
        self._rows = rows

    def fetchall(self) -> list[Row]:
        return self._rows

    def fetchone(self) -> Row | None:
        return self._rows[0] if self._rows else None


class PostgresSession:
    """``Session`` over one cursor of a tenant-scoped transaction or read. ``ahead`` holds,
    by the read they answer, statements already sent on cursors of their own
    (``PostgresReader.prefetch``): ``answer`` takes their rows instead of asking again."""

    __slots__ = ("ahead", "cur", "dialect")

    find = "strpos"
    holds_bytes = "position(? in {}) > 0"
    char = "chr"
    true = "TRUE"
    bytewise = ' COLLATE "C"'
    false = "FALSE"
    locking = " FOR UPDATE"

    def __init__(self, cur: Cursor, dialect: Dialect = POSTGRES) -> None:
        self.cur = cur
        self.dialect = dialect
        self.ahead: dict[ReadAhead, Cursor] = {}

    def _run(self, sql: str, params: Params) -> Cursor:
        return self._cursor().execute(self.dialect.native(sql), params)

    def answer(self, request: ReadAhead, sql: str, params: Params = ()) -> list[Row]:
        sent = self.ahead.pop(request, None) if self.ahead else None
        return self.rows(sql, params) if sent is None else sent.fetchall()

    def send(self, sql: str, params: Params = ()) -> Cursor | Answered:
        """``sql`` sent now, its rows taken later from what this returns, so that the
        caller can work while the server does. On one cursor it is simply run."""
        return Answered(self.rows(sql, params))

    def send_answer(self, request: ReadAhead, sql: str, params: Params = ()) -> Cursor | Answered:
        """``send`` of ``sql``, the statement that answers ``request``: what was sent ahead
        for it, if anything was."""
        sent = self.ahead.pop(request, None) if self.ahead else None
        return self.send(sql, params) if sent is None else sent

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return self._run(sql, params).fetchall()

    def row(self, sql: str, params: Params = ()) -> Row | None:
        return self._run(sql, params).fetchone()

    def _cursor(self) -> Cursor:
        """The cursor statements run on (a read starts its transaction here, lazily)."""
        return self.cur

    def run(self, sql: str, params: Params = ()) -> None:
        if len(params) > WIDE:
            self._wide().execute(to_numbered(sql), params)
        else:
            self._cursor().execute(self.dialect.native(sql), params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        if sql.count("?") > WIDE:
            self._wide().executemany(to_numbered(sql), params)
        else:
            self._cursor().executemany(self.dialect.native(sql), params)

    def _wide(self) -> RawCursor:
        """A raw cursor on the connection of the statements' cursor, after whatever that
        cursor sends first: the statements stay in order in the connection's pipeline."""
        raw = RawCursor(self._cursor().connection)
        raw.format = Format.BINARY
        return raw

    def count(self, sql: str, params: Params = ()) -> int:
        return len(self._cursor().execute(self.dialect.native(f"{sql} RETURNING 1"), params).fetchall())

    def insert(self, sql: str, params: Params, key: str) -> int:
        row = self._cursor().execute(self.dialect.native(f"{sql} RETURNING {key}"), params).fetchone()
        assert row is not None
        return int(row[0])

    def span(self, column: str) -> str:
        return f"{column} * interval '1 microsecond'"

    @staticmethod
    def moment(value: int | None) -> Any:
        return None if value is None else Micros(value)


class ScopedSession(PostgresSession):
    """A session that asks its owner for the cursor before every statement, so that the
    owner sends first what must go first (the tenant, lookups it deferred); ``fresh``
    gives a new cursor in the owner's pipeline for statements sent ahead (``send``)."""

    __slots__ = ("_fresh", "_source")

    def __init__(  # noqa: D107 - no cursor of its own
        self, source: Callable[[], Cursor], dialect: Dialect, fresh: Callable[[], Cursor] | None = None,
    ) -> None:
        self.ahead = {}
        self.dialect = dialect
        self._source = source
        self._fresh = fresh

    def _cursor(self) -> Cursor:
        return self._source()

    def send(self, sql: str, params: Params = ()) -> Cursor | Answered:
        if self._fresh is None:
            return super().send(sql, params)
        return self._fresh().execute(self.dialect.native(sql), params)


class AloneSession(PostgresSession):
    """A session whose every statement is a pipeline of its own: the tenant, the statement,
    one Sync, and its rows read after the Sync (``PostgresBackend.read_one``)."""

    __slots__ = ("_conn", "_tenant")

    def __init__(self, conn: psycopg.Connection[Any], tenant: str, dialect: Dialect) -> None:  # noqa: D107
        self.ahead = {}
        self.dialect = dialect
        self._conn = conn
        self._tenant = tenant

    def _alone(self, sql: str, params: Params) -> Cursor:
        """In the transaction the dialect begins, or else the Sync's implicit one."""
        explicit = self.dialect.explicit
        with self._conn.pipeline():
            if explicit:
                self._conn.cursor().execute(self.dialect.begin)
            self._conn.cursor(binary=True).execute(self.dialect.set_tenant(self._tenant), prepare=False)
            cur = self._conn.cursor(binary=True)
            cur.execute(sql, params)
            if explicit:
                self._conn.cursor().execute("COMMIT")
        return cur

    def _run(self, sql: str, params: Params) -> Cursor:
        return self._alone(self.dialect.native(sql), params)

    def run(self, sql: str, params: Params = ()) -> None:
        self._alone(self.dialect.native(sql), params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        raise NotImplementedError("a read of one statement runs no batch")

    def count(self, sql: str, params: Params = ()) -> int:
        return len(self._alone(self.dialect.native(f"{sql} RETURNING 1"), params).fetchall())

    def insert(self, sql: str, params: Params, key: str) -> int:
        row = self._alone(self.dialect.native(f"{sql} RETURNING {key}"), params).fetchone()
        assert row is not None
        return int(row[0])
