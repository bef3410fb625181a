"""The SQLite side of the dialect layer: portable statements run as they are written."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._sql.dialect import SQLITE
from .._sql.session import Params, Row

if TYPE_CHECKING:
    from .._requests import ReadAhead


class SQLiteSession:
    """``Session`` over one connection; times are integers already."""

    __slots__ = ("_conn",)

    dialect = SQLITE
    find = "instr"
    holds_bytes = "instr({}, ?) > 0"
    char = "char"
    true = "1"
    bytewise = ""
    false = "0"
    locking = ""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def rows(self, sql: str, params: Params = ()) -> list[Row]:
        return self._conn.execute(sql, params).fetchall()

    def row(self, sql: str, params: Params = ()) -> Row | None:
        found: Row | None = self._conn.execute(sql, params).fetchone()
        return found

    def answer(self, request: ReadAhead, sql: str, params: Params = ()) -> list[Row]:
        """Nothing is sent ahead: a statement is a function call into the same process."""
        return self.rows(sql, params)

    def run(self, sql: str, params: Params = ()) -> None:
        self._conn.execute(sql, params)

    def run_many(self, sql: str, params: Iterable[Params]) -> None:
        self._conn.executemany(sql, params)

    def count(self, sql: str, params: Params = ()) -> int:
        return self._conn.execute(sql, params).rowcount

    def insert(self, sql: str, params: Params, key: str) -> int:
        """``key`` is the table's ``INTEGER PRIMARY KEY``, so the new rowid is its value."""
        rowid = self._conn.execute(sql, params).lastrowid
        assert rowid is not None
        return rowid

    def span(self, column: str) -> str:
        return column

    @staticmethod
    def moment(value: int | None) -> Any:
        return value
