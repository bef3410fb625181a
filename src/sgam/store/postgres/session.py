"""The PostgreSQL side of the dialect layer: a portable statement becomes a native one
once (``%s`` placeholders, literal ``%`` doubled, ``INDEXED BY`` hints dropped), times
are bound as ``timestamptz`` and counts come back through ``RETURNING``, because a
pipeline has no row count to give."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import psycopg

from .._sql.session import Params, Row
from .adapters import Micros

Cursor = psycopg.Cursor[tuple[Any, ...]]

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


class PostgresSession:
    """``Session`` over one cursor of a tenant-scoped transaction or read. ``ahead`` holds
    statements already sent on cursors of their own (``PostgresReader.prefetch``): a
    ``rows``/``row`` call with the same text and parameters takes that cursor's result."""

    __slots__ = ("ahead", "cur")

    find = "strpos"
    char = "chr"
    true = "TRUE"
    false = "FALSE"

    def __init__(self, cur: Cursor) -> None:
        self.cur = cur
        self.ahead: dict[tuple[str, tuple[Any, ...]], Cursor] = {}

    def _run(self, sql: str, params: Params) -> Cursor:
        if self.ahead:
            try:
                sent = self.ahead.pop((sql, tuple(params)), None)
            except TypeError:  # an unhashable (list) parameter: never sent ahead
                sent = None
            if sent is not None:
                return sent
        return self.cur.execute(native(sql), params)

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return self._run(sql, params).fetchall()

    def row(self, sql: str, params: Params = ()) -> Row | None:
        return self._run(sql, params).fetchone()

    def run(self, sql: str, params: Params = ()) -> None:
        self.cur.execute(native(sql), params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        self.cur.executemany(native(sql), params)

    def count(self, sql: str, params: Params = ()) -> int:
        return len(self.cur.execute(native(f"{sql} RETURNING 1"), params).fetchall())

    def insert(self, sql: str, params: Params, key: str) -> int:
        row = self.cur.execute(native(f"{sql} RETURNING {key}"), params).fetchone()
        assert row is not None
        return int(row[0])

    def span(self, column: str) -> str:
        return f"{column} * interval '1 microsecond'"

    @staticmethod
    def moment(value: int | None) -> Any:
        return None if value is None else Micros(value)
