"""The SQLite schema itself refuses rows that break the ledger's invariants, whatever
code wrote them: the rules are not only checked in Python."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
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


def test_overlapping_current_versions_are_refused(conn: sqlite3.Connection) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="overlap"):
        conn.execute(INSERT, (1_800_000_000_000_000, None, 1, None))


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
