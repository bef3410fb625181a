"""The dialect layer turns a statement written once into each backend's own."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from sgam.store._sql.session import chunks, in_list
from sgam.store.postgres.session import native
from sgam.store.sqlite.session import SQLiteSession


def test_postgres_text_of_a_portable_statement() -> None:
    portable = ("SELECT a FROM assertions INDEXED BY assertions_current WHERE tenant = ? "
                "AND value LIKE '%x' AND valid_from <= ?")
    assert native(portable) == (
        "SELECT a FROM assertions WHERE tenant = %s AND value LIKE '%%x' AND valid_from <= %s"
    )
    assert native(portable) is native(portable)  # converted once, then remembered


def test_index_hints_across_lines_are_dropped() -> None:
    assert native("JOIN episodes e INDEXED BY episodes_by_retention\n  ON e.tenant = ?") == (
        "JOIN episodes e\n  ON e.tenant = %s"
    )


def test_in_lists_come_in_chunks_below_the_parameter_limit() -> None:
    values = list(range(1201))
    parts = list(chunks(values))
    assert [len(part) for part in parts] == [500, 500, 201]
    assert [v for part in parts for v in part] == values
    assert in_list("seq", 3) == "seq IN (?, ?, ?)"


def test_sqlite_session_counts_inserts_and_binds_times_as_integers() -> None:
    with closing(sqlite3.connect(":memory:")) as conn:
        db = SQLiteSession(conn)
        db.run("CREATE TABLE t (seq INTEGER PRIMARY KEY, at INTEGER, live INTEGER)")
        first = db.insert("INSERT INTO t (at, live) VALUES (?, ?)", (db.moment(5), True), "seq")
        db.run_many("INSERT INTO t (at, live) VALUES (?, ?)", [(6, False), (7, True)])
        assert first == 1
        assert db.count(f"UPDATE t SET at = at + 1 WHERE live = {db.true}") == 2
        assert db.rows("SELECT seq, at FROM t ORDER BY seq") == [(1, 6), (2, 6), (3, 8)]
        assert db.row("SELECT seq FROM t WHERE at > ?", (100,)) is None
        assert db.moment(None) is None
