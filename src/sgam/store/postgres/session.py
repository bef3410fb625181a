"""The PostgreSQL side of the dialect layer: a portable statement becomes a native one
once (``%s`` placeholders, literal ``%`` doubled, ``INDEXED BY`` hints dropped), times
are bound as ``timestamptz`` and counts come back through ``RETURNING``, because a
pipeline has no row count to give."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import sql

from .._requests import ReadAhead
from .._sql.session import Params, Row
from .adapters import Micros

Cursor = psycopg.Cursor[tuple[Any, ...]]



@lru_cache(maxsize=1024)
def set_tenant(tenant: str) -> str:
    """The first statement of a tenant's transaction: row-level security admits its rows.
    ``SET LOCAL`` rather than ``set_config()``: Citus sends a ``SET LOCAL`` on to the
    workers whose shards' policies read the setting (``citus.propagate_set_commands``),
    and a function call it would not. SET takes no parameter, so the tenant is quoted here;
    it is sent unprepared (``prepare=False``), or each tenant would hold a prepared statement."""
    return "SET LOCAL sgam.tenant = " + sql.Literal(tenant).as_string().strip()

_HINT = re.compile(r"\s+INDEXED BY \w+")
_NATIVE: dict[str, str] = {}
_NATIVE_LIMIT = 4096


def native(sql: str) -> str:
    """The PostgreSQL text of a portable statement (remembered: statements repeat)."""
    found = _NATIVE.get(sql)
    if found is None:
        found = _HINT.sub("", sql).replace("%", "%%").replace("?", "%s")
        if len(_NATIVE) >= _NATIVE_LIMIT:
            _NATIVE.clear()
        _NATIVE[sql] = found
    return found


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

    __slots__ = ("ahead", "cur")

    find = "strpos"
    holds_bytes = "position(? in {}) > 0"
    char = "chr"
    true = "TRUE"
    bytewise = ' COLLATE "C"'
    false = "FALSE"
    locking = " FOR UPDATE"

    def __init__(self, cur: Cursor) -> None:
        self.cur = cur
        self.ahead: dict[ReadAhead, Cursor] = {}

    def _run(self, sql: str, params: Params) -> Cursor:
        return self._cursor().execute(native(sql), params)

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
        self._cursor().execute(native(sql), params)

    def entering(self, sql: str, params: Params) -> Cursor:
        """Run ``sql`` (native), a call that sets the tenant itself (see the baseline): where
        the session has not set it yet, it goes first without the set_config before it,
        one statement fewer. Its rows, if wanted, are taken from the cursor returned."""
        return self._cursor().execute(sql, params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        self._cursor().executemany(native(sql), params)

    def count(self, sql: str, params: Params = ()) -> int:
        return len(self._cursor().execute(native(f"{sql} RETURNING 1"), params).fetchall())

    def insert(self, sql: str, params: Params, key: str) -> int:
        row = self._cursor().execute(native(f"{sql} RETURNING {key}"), params).fetchone()
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

    __slots__ = ("_enter", "_fresh", "_source")

    def __init__(  # noqa: D107 - no cursor of its own
        self, source: Callable[[], Cursor], fresh: Callable[[], Cursor] | None = None,
        enter: Callable[[str, Params], Cursor] | None = None,
    ) -> None:
        self.ahead = {}
        self._source = source
        self._fresh = fresh
        self._enter = enter

    def _cursor(self) -> Cursor:
        return self._source()

    def entering(self, sql: str, params: Params) -> Cursor:
        """The owner's ``enter``, which knows whether the tenant has been set, if it has one."""
        if self._enter is None:
            return super().entering(sql, params)
        return self._enter(sql, params)

    def send(self, sql: str, params: Params = ()) -> Cursor | Answered:
        if self._fresh is None:
            return super().send(sql, params)
        return self._fresh().execute(native(sql), params)

class AloneSession(PostgresSession):
    """A session whose every statement is a pipeline of its own: the tenant, the statement,
    one Sync, and its rows read after the Sync (``PostgresBackend.read_one``)."""

    __slots__ = ("_conn", "_explicit", "_tenant")

    def __init__(self, conn: psycopg.Connection[Any], tenant: str, explicit: bool = False) -> None:  # noqa: D107
        self.ahead = {}
        self._conn = conn
        self._tenant = tenant
        self._explicit = explicit

    def _alone(self, sql: str, params: Params) -> Cursor:
        """``explicit``: inside ``BEGIN`` and ``COMMIT`` (Citus sends a ``SET LOCAL`` on to
        the workers only in an explicit transaction); else the Sync's implicit one."""
        with self._conn.pipeline():
            if self._explicit:
                self._conn.cursor().execute("BEGIN")
            self._conn.cursor(binary=True).execute(set_tenant(self._tenant), prepare=False)
            cur = self._conn.cursor(binary=True)
            cur.execute(sql, params)
            if self._explicit:
                self._conn.cursor().execute("COMMIT")
        return cur

    def _run(self, sql: str, params: Params) -> Cursor:
        return self._alone(native(sql), params)

    def run(self, sql: str, params: Params = ()) -> None:
        self._alone(native(sql), params)

    def entering(self, sql: str, params: Params) -> Cursor:
        """Alone on the autocommit connection, outside a pipeline: one statement that is
        its own transaction, so the tenant it sets ends with it."""
        return self._conn.cursor(binary=True).execute(sql, params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        raise NotImplementedError("a read of one statement runs no batch")

    def count(self, sql: str, params: Params = ()) -> int:
        return len(self._alone(native(f"{sql} RETURNING 1"), params).fetchall())

    def insert(self, sql: str, params: Params, key: str) -> int:
        row = self._alone(native(f"{sql} RETURNING {key}"), params).fetchone()
        assert row is not None
        return int(row[0])
