"""The lines the database writes for an export are, byte for byte, the lines the Python
encoder writes for the same rows: odd text, real numbers with and without a short
decimal text, instants, flags, and operations numbered with and without gaps."""

from __future__ import annotations

import pytest

from sgam import Memory
from sgam.portability.exporter import PAGE, Ranks, table_lines, table_text
from sgam.store._portable import PORTABLE_TABLES, TABLES_BY_NAME
from sgam.store._sql.portable_lines import UNWRITTEN
from sgam.store.postgres.portable import PostgresPortableRows
from tests.conftest import ManualClock, PostgresUrls, Store

TENANT = "acme"
ODD_TEXT = ['quote " back \\ slash', "tab\tnew\nline\rcr\b\f", "\x01\x1f\x7f", "é 東京 \u2028\u2029 🙂"]
CONFIDENCES = [1.0, 0.9, 0.85, 0.0001, 0.5, 1 / 3, 0.30000000000000004, 1e-05, 0.0]
"""Some with a text of at most 15 digits (the database writes them), some not (Python does)."""


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _fill(memory: Memory) -> None:
    memory.add_episodes(TENANT, [{"id": f"e{n}", "at": "2026-06-01T00:00:00.000001Z", "text": text,
                                  "metadata": {"note": text}}
                                 for n, text in enumerate(ODD_TEXT)])
    for n, confidence in enumerate(CONFIDENCES):
        memory.write(TENANT, f"s{n % 3}", "score", {"n": n, "text": ODD_TEXT[n % len(ODD_TEXT)]},
                     f"2026-06-0{1 + n % 5}T00:00:00Z", f"e{n % 2}", confidence=confidence)
    memory.write(TENANT, "old", "born", "1066-10-14T00:00:00Z", "0001-01-01T00:00:00Z", "e3")
    memory.alias(TENANT, "s-zero", "s0")
    memory.consent(TENANT, "s1", False)


def _compare(memory: Memory) -> tuple[int, int]:
    """Every table's lines both ways; how many lines the database wrote and how many it
    left to Python."""
    written = left = 0
    with memory.backend.read(TENANT) as reader:
        rows = reader.portable()
        by_python, by_database = Ranks(rows), Ranks(rows)
        for table in PORTABLE_TABLES:
            expected = list(table_lines(rows, table, by_python))
            pieces = list(table_text(rows, table, by_database))
            assert b"".join(data for data, _ in pieces) == "".join(expected).encode(), table.name
            assert sum(lines for _, lines in pieces) == len(expected), table.name
            if rows.renders(table, by_database.dense):
                for page in rows.record_lines(table, by_database.dense, PAGE):
                    keyed = page.keyed()
                    assert b"".join(row[-1] for row in keyed) == page.text and len(keyed) == page.lines
                    unwritten = [UNWRITTEN in row[-1] for row in keyed]
                    written += unwritten.count(False)
                    left += unwritten.count(True)
    return written, left


def test_the_database_writes_each_line_as_python_does(store: Store) -> None:
    with Memory(store.url, clock=ManualClock()) as memory:
        _fill(memory)
        with memory.backend.read(TENANT) as reader:
            rows = reader.portable()
            assert Ranks(rows).dense == len(CONFIDENCES) + 1
            assert rows.renders(TABLES_BY_NAME["assertions"], Ranks(rows).dense)
        written, left = _compare(memory)
    assert written > 20
    # an operation and a version each: 1/3, 0.30000000000000004 and 1e-05 on SQLite (15
    # digits at most); on PostgreSQL, which writes a double's shortest text, 1e-05 only
    assert left == {"sqlite": 6, "postgres": 2}[store.backend]


@pytest.mark.parametrize("version", [110000, 160000], ids=["PostgreSQL 11", "PostgreSQL 16"])
def test_an_older_servers_spellings_write_the_same_lines(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch, version: int,
) -> None:
    """Before PostgreSQL 17 text goes through ``to_json``; before 12 a double's text is
    read back (no setting gave its shortest exact text): both spellings run on this
    server and must write the lines the newest one writes."""
    monkeypatch.setattr(PostgresPortableRows, "_server_version", lambda self: version)
    with Memory(postgres.app, clock=ManualClock()) as memory:
        _fill(memory)
        written, left = _compare(memory)
        with memory.backend.read(TENANT) as reader:
            rows = reader.portable()
            spelled = rows.line_sql(TABLES_BY_NAME["operations"], Ranks(rows).dense)
    assert "to_json(subject)" in spelled and "JSON_SCALAR" not in spelled
    assert ("::text::float8" in spelled) == (version < 120000)
    assert written > 20 and left == 2


def test_operations_numbered_with_gaps_are_ranked_as_python_ranks_them(store: Store) -> None:
    with Memory(store.url, clock=ManualClock()) as memory:
        _fill(memory)
        memory.forget_subject(TENANT, "s1")
        memory.write(TENANT, "s4", "score", 7, "2026-06-09T00:00:00Z", "e0")
        with memory.backend.read(TENANT) as reader:
            rows = reader.portable()
            assert Ranks(rows).dense is None
            assert not rows.renders(TABLES_BY_NAME["assertions"], None)
            assert rows.renders(TABLES_BY_NAME["episodes"], None)
        written, _ = _compare(memory)
    assert written > 5


def test_lines_read_a_few_at_a_time_are_the_lines_read_at_once(store: Store) -> None:
    with Memory(store.url, clock=ManualClock()) as memory:
        _fill(memory)
        with memory.backend.read(TENANT) as reader:
            rows = reader.portable()
            dense = Ranks(rows).dense
            for name in ("episodes", "operations", "assertions"):
                table = TABLES_BY_NAME[name]
                next(rows.record_lines(table, dense, 1))  # a walk left unfinished
                pages = list(rows.record_lines(table, dense, 2))
                assert [page.lines for page in pages[:-1]] == [2] * (len(pages) - 1), name
                whole = [row for page in rows.record_lines(table, dense, PAGE) for row in page.keyed()]
                assert [row for page in pages for row in page.keyed()] == whole, name
                assert b"".join(page.text for page in pages) == b"".join(row[-1] for row in whole), name
                assert len(whole) == rows.count_rows([table])[name], name
