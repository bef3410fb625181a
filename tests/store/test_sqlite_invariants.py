"""The SQLite schema itself refuses rows that break the ledger's invariants, whatever
code wrote them: the rules are not only checked in Python."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from sgam import Memory

INSERT = (
    "INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, valid_from, valid_to, "
    "recorded_from, recorded_to, source, confidence, schema_version, supersedes, origin, closed_by) "
    "VALUES (99, 'acme', 'mira', 'city', '\"Rome\"', 'fact', ?, ?, ?, ?, 'e1', 1.0, 0, NULL, 'write', NULL)"
)


@pytest.fixture()
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "ledger.db"
    with Memory(f"sqlite:///{path}") as memory:
        memory.add_episode("acme", "e1", "2026-01-01T00:00:00Z", "Mira lives in Oslo, since 2026.")
        memory.write("acme", "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
    connection = sqlite3.connect(path)
    yield connection
    connection.close()


def test_a_current_version_running_past_the_next_start_is_refused(conn: sqlite3.Connection) -> None:
    start = conn.execute("SELECT valid_from FROM assertions").fetchone()[0]
    for end in (None, start + 1):
        with pytest.raises(sqlite3.IntegrityError, match="past the start of the next one"):
            conn.execute(INSERT, (start - 10, end, 1, None))
    conn.execute(INSERT, (start - 10, start, 1, None))


def test_a_version_starting_inside_another_ends_it(tmp_path: Path) -> None:
    """One holder per instant without an overlap check: a version's end is derived from
    the next start, so an appended version ends the one it starts inside."""
    with Memory(f"sqlite:///{tmp_path / 'cut.db'}") as memory:
        memory.add_episode("acme", "e1", "2026-01-01T00:00:00Z", "Mira lives in Oslo, since 2026.")
        memory.write("acme", "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
        with closing(sqlite3.connect(tmp_path / "cut.db")) as raw, raw:
            raw.execute(INSERT, (1_800_000_000_000_000, None, 1, None))
        oslo = memory.get("acme", "mira", "city", at="2026-06-01T00:00:00Z")
        rome = memory.get("acme", "mira", "city", at="2027-06-01T00:00:00Z")
        assert oslo is not None and oslo.value == "Oslo" and oslo.valid_to is not None
        assert rome is not None and rome.value == "Rome" and rome.valid_from == oslo.valid_to


def test_equal_start_for_two_current_versions_is_refused(conn: sqlite3.Connection) -> None:
    start = conn.execute("SELECT valid_from FROM assertions").fetchone()[0]
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(INSERT, (start, start + 10, 1, None))


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "recorded_from", "recorded_to"),
    [(10, 10, 1, None), (10, 5, 1, None), (10, 20, 5, 5), (10, 20, 5, 1)],
    ids=["empty valid", "inverted valid", "empty recorded", "inverted recorded"],
)
def test_empty_or_inverted_intervals_are_refused(
    conn: sqlite3.Connection, valid_from: int, valid_to: int, recorded_from: int, recorded_to: int | None
) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        conn.execute(INSERT, (valid_from, valid_to, recorded_from, recorded_to))


def test_retired_versions_are_immutable(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE assertions SET recorded_to = recorded_from + 1")
    with pytest.raises(sqlite3.IntegrityError, match="only retiring"):
        conn.execute("UPDATE assertions SET value = '\"Rome\"'")
    with pytest.raises(sqlite3.IntegrityError, match="only retiring"):
        conn.execute("UPDATE assertions SET recorded_to = NULL")


def test_current_versions_change_only_by_retiring(conn: sqlite3.Connection) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="only retiring"):
        conn.execute("UPDATE assertions SET valid_to = valid_from + 5")
