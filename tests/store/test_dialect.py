"""One dialect per database: what differs between SQLite, PostgreSQL and Citus, and the
dialect layer that turns a statement written once into each backend's own."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.citus import CITUS_URL, not_on_citus
from tests.conftest import PostgresUrls
from tests.store.test_postgres_checkpoint_calls import _put, pipelines

from sgam import Memory
from sgam.access import checked_call, create_key
from sgam.langgraph import SgamSaver
from sgam.store._sql.dialect import CITUS, POSTGRES, SQLITE, quoted, to_numbered
from sgam.store._sql.session import chunks, in_list
from sgam.store.postgres import PostgresBackend
from sgam.store.postgres.distribute import dialect_of
from sgam.store.postgres.inserts import OPERATION_AND_VERSIONS, VERSIONS
from sgam.store.postgres.session import PostgresSession
from sgam.store.sqlite.session import SQLiteSession

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_postgres_text_of_a_portable_statement() -> None:
    portable = ("SELECT a FROM assertions INDEXED BY assertions_current WHERE tenant = ? "
                "AND value LIKE '%x' AND valid_from <= ?")
    assert POSTGRES.native(portable) == (
        "SELECT a FROM assertions WHERE tenant = %s AND value LIKE '%%x' AND valid_from <= %s"
    )
    assert POSTGRES.native(portable) is CITUS.native(portable)  # converted once, then remembered
    assert SQLITE.native(portable) is portable


def test_index_hints_across_lines_are_dropped() -> None:
    assert POSTGRES.native("JOIN episodes e INDEXED BY episodes_by_retention\n  ON e.tenant = ?") == (
        "JOIN episodes e\n  ON e.tenant = %s"
    )


def test_the_tenant_is_set_inside_the_transaction_and_quoted() -> None:
    assert POSTGRES.set_tenant("acme") == CITUS.set_tenant("acme") == "SET LOCAL sgam.tenant = 'acme'"
    assert quoted("it's") == "'it''s'"
    assert quoted("a\\b'") == "E'a\\\\b'''"
    with pytest.raises(ValueError, match="NUL"):
        quoted("a\0b")
    with pytest.raises(ValueError, match="sets no tenant"):
        SQLITE.set_tenant("acme")


def test_only_citus_wraps_a_unit_of_work_in_an_explicit_begin() -> None:
    assert (SQLITE.explicit, POSTGRES.explicit, CITUS.explicit) == (True, False, True)
    assert (SQLITE.begin, CITUS.begin) == ("BEGIN IMMEDIATE", "BEGIN")
    assert POSTGRES.snapshot == CITUS.snapshot == "BEGIN ISOLATION LEVEL REPEATABLE READ"
    assert SQLITE.snapshot == "BEGIN"


def test_in_lists_come_in_chunks_below_the_parameter_limit() -> None:
    values = list(range(1201))
    parts = list(chunks(values))
    assert [len(part) for part in parts] == [500, 500, 201]
    assert [v for part in parts for v in part] == values
    assert in_list("seq", 3) == "seq IN (?, ?, ?)"


def test_a_batch_wider_than_one_statement_is_split_and_keeps_every_row() -> None:
    rows = [tuple(range(i, i + 16)) for i in range(10_000)]
    sent = list(CITUS.batches(VERSIONS, rows, OPERATION_AND_VERSIONS, prefix=tuple(range(13))))
    assert len(sent) == 3
    assert all(len(params) <= CITUS.max_parameters and statement.count("%s") == len(params)
               for statement, params in sent)
    assert sent[0][0].startswith("WITH operation") and not sent[1][0].startswith("WITH")
    assert sent[0][1][:13] == tuple(range(13))
    assert [params for _, params in sent][0][13:] + sent[1][1] + sent[2][1] == tuple(v for row in rows for v in row)
    portable = list(POSTGRES.batches("INSERT INTO t (a, b)", [(1, 2), (3, 4)], portable=True))
    assert portable == [("INSERT INTO t (a, b) VALUES (?, ?), (?, ?)", (1, 2, 3, 4))]
    assert list(POSTGRES.batches(VERSIONS, [])) == []


def test_sqlite_batches_fit_its_parameter_limit_and_store_every_row() -> None:
    rows = [(i, f"v{i}", i % 7) for i in range(25_000)]
    with closing(sqlite3.connect(":memory:")) as conn:
        db = SQLiteSession(conn)
        db.run("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c INTEGER)")
        sent = list(db.dialect.batches("INSERT INTO t (a, b, c)", rows))
        assert len(sent) == 3  # 10,922 rows of three in each of SQLite's 32,766 parameters
        for statement, params in sent:
            db.run(statement, params)
        assert db.rows("SELECT a, b, c FROM t ORDER BY a") == rows


def test_a_numbered_statement_keeps_its_literals_and_drops_hints() -> None:
    portable = ("SELECT a FROM assertions INDEXED BY assertions_current WHERE tenant = ? "
                "AND value LIKE '%x' AND valid_from <= ?")
    assert to_numbered(portable) == (
        "SELECT a FROM assertions WHERE tenant = $1 AND value LIKE '%x' AND valid_from <= $2"
    )


def test_wide_statements_run_numbered_in_their_place_in_a_pipeline(postgres: PostgresUrls) -> None:
    """Over 50 parameters a statement goes on a raw cursor of the same connection: in a
    pipeline it still runs after what was sent before it and before what follows."""
    rows = [(i, f"v%{i}") for i in range(60)]
    wide = "INSERT INTO t (a, b) VALUES " + ", ".join(["(?, ?)"] * 30)
    with psycopg.connect(postgres.admin) as conn:
        conn.execute("CREATE TEMP TABLE t (a integer PRIMARY KEY, b text)")
        db = PostgresSession(conn.cursor(), POSTGRES)
        with conn.pipeline():
            db.run("INSERT INTO t (a, b) VALUES (?, ?)", (-1, "first"))
            db.run_many(wide, [[v for row in rows[:30] for v in row], [v for row in rows[30:] for v in row]])
            db.run("UPDATE t SET b = b || '!' WHERE a >= ?", (0,))
            db.run(wide.replace(", (?, ?)", "", 29) + ", (?, ?)" * 25, [v for i in range(100, 126) for v in (i, "x")])
        assert db.rows("SELECT a, b FROM t WHERE a < 100 ORDER BY a") == [(-1, "first")] + [
            (a, b + "!") for a, b in rows]
        assert db.rows("SELECT count(*) FROM t WHERE a >= 100") == [(26,)]


def test_postgres_batches_store_every_row(postgres: PostgresUrls) -> None:
    rows = [(i, f"v{i}") for i in range(40_000)]
    with psycopg.connect(postgres.admin) as conn:
        conn.execute("CREATE TEMP TABLE t (a integer PRIMARY KEY, b text)")
        db = PostgresSession(conn.cursor(), POSTGRES)
        sent = list(db.dialect.batches("INSERT INTO t (a, b)", rows, portable=True))
        assert len(sent) == 2
        for statement, params in sent:
            db.run(statement, params)
        assert db.rows("SELECT a, b FROM t ORDER BY a") == rows


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


def test_a_database_gets_the_dialect_of_its_server(postgres: PostgresUrls) -> None:
    """A Citus coordinator's database (the ``citus`` extension) gets ``CITUS``, any other
    PostgreSQL database ``POSTGRES``."""
    expected = POSTGRES if CITUS_URL is None else CITUS
    with psycopg.connect(postgres.app) as conn:
        assert dialect_of(conn) is expected
    backend = PostgresBackend(postgres.app)
    try:
        assert backend.dialect is expected
    finally:
        backend.close()


def test_no_server_function_sets_the_tenant(postgres: PostgresUrls) -> None:
    """The unit of work sets the tenant (``SET LOCAL``) before any function runs: a function
    that set it itself would set it on the coordinator alone, where Citus's workers never
    see it."""
    with psycopg.connect(postgres.admin) as conn:
        setting = conn.execute(
            "SELECT p.proname FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace "
            r"AND p.prosrc ~* '(set_config\s*\(\s*''sgam\.tenant''|SET\s+(LOCAL\s+)?sgam\.tenant)'").fetchall()
    assert setting == []


def _every_path(memory: Memory, key: str) -> None:
    """A write, a pipelined read, a read of one statement, a checkpoint put alone and its
    resume, and a keyed call: each kind of pipeline the backend opens."""
    memory.add_episode("acme", "e1", T0, "Mira moved to Oslo.")
    memory.write("acme", "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
    assert memory.get("acme", "mira", "city").value == "Oslo"  # type: ignore[union-attr]
    assert [v.value for v in memory.history("acme", "mira", "city")] == ["Oslo"]
    assert memory.search("acme", "Oslo")
    saver = SgamSaver(memory, tenant="acme")
    first = _put(saver, "t-1", 0)
    _put(saver, "t-1", 1, first)
    found = saver.get_tuple({"configurable": {"thread_id": "t-1", "checkpoint_ns": ""}})  # type: ignore[arg-type]
    assert found is not None and found.checkpoint["channel_values"] == {"notes": "step 1"}
    assert checked_call(memory, key, lambda m: m.get("acme", "mira", "city")).value == "Oslo"  # type: ignore[union-attr]


_PLAIN_ON_CITUS = not_on_citus(
    "the PostgreSQL dialect is not the one a Citus coordinator gets: without an explicit BEGIN its "
    "SET LOCAL never reaches the workers, whose row-level security then refuses the tenant's rows")


@pytest.mark.parametrize("dialect", [pytest.param(POSTGRES, marks=_PLAIN_ON_CITUS), CITUS], ids=lambda d: d.name)
def test_each_pipeline_is_one_transaction_as_the_dialect_begins_it(postgres: PostgresUrls, dialect: object) -> None:
    """On PostgreSQL a write or a read of one statement is its pipeline's implicit
    transaction; with the dialect a Citus coordinator gets, each is wrapped in ``BEGIN``
    and ``COMMIT``, the tenant set inside. Both run the same statements on any PostgreSQL."""
    backend = PostgresBackend(postgres.app)
    backend.dialect = dialect  # type: ignore[assignment]
    with Memory(backend=backend) as memory:
        key = create_key(memory, "acme", "read").key
        with pipelines() as opened:
            _every_path(memory, key)
    assert opened
    for sent in opened:
        if sent[0] == POSTGRES.snapshot:
            continue  # a pipelined read: its own snapshot on either
        assert (sent[0] == "BEGIN" and sent[-1] == "COMMIT") is (dialect is CITUS), sent
        tenant = sent.index("SET LOCAL sgam.tenant = 'acme'")
        assert all("sgam_api_key" not in statement for statement in sent[:tenant]), sent  # its tenant first


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=40))
def test_a_quoted_literal_reads_back_as_its_text_whatever_the_string_settings(
    postgres: PostgresUrls, value: str,
) -> None:
    """``SET`` takes no parameter, so the tenant goes into the statement as a literal: it
    must read back as exactly the text given, with quotes and backslashes, under either
    setting of ``standard_conforming_strings``."""
    with psycopg.connect(postgres.app, autocommit=True) as conn:
        for conforming in ("on", "off"):
            conn.execute(f"SET standard_conforming_strings = {conforming}")
            conn.execute("SET escape_string_warning = off")
            assert conn.execute(f"SELECT {quoted(value)}").fetchone() == (value,)
            with conn.transaction():
                conn.execute(f"SET LOCAL sgam.tenant = {quoted(value)}", prepare=False)
                assert conn.execute("SELECT current_setting('sgam.tenant')").fetchone() == (value,)
