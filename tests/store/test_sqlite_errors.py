"""Every sqlite3 exception class leaves the backend as an sgam error that names the file
and the cause."""

from __future__ import annotations

import inspect
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from sgam import BusyError, ConflictError, Memory, SgamError, StoreError
from sgam.store.sqlite.errors import DRIVER_ERRORS, map_sqlite_errors

DRIVER_CLASSES = [
    cls for _, cls in inspect.getmembers(sqlite3, inspect.isclass)
    if issubclass(cls, sqlite3.Error)
]


def test_every_driver_error_class_is_in_the_table() -> None:
    assert DRIVER_CLASSES
    assert set(DRIVER_CLASSES) <= set(DRIVER_ERRORS)


@pytest.mark.parametrize("driver_error", DRIVER_CLASSES, ids=lambda cls: cls.__name__)
def test_driver_errors_are_mapped(driver_error: type[sqlite3.Error]) -> None:
    with pytest.raises(SgamError) as caught, map_sqlite_errors():
        raise driver_error("boom")
    assert isinstance(caught.value, (StoreError, ConflictError))
    assert isinstance(caught.value.__cause__, driver_error)


def test_locked_database_is_busy() -> None:
    with pytest.raises(BusyError), map_sqlite_errors():
        raise sqlite3.OperationalError("database is locked")


def test_integrity_error_is_a_conflict() -> None:
    with pytest.raises(ConflictError), map_sqlite_errors():
        raise sqlite3.IntegrityError("UNIQUE constraint failed")


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no-such-folder" / "sgam.db"
    with pytest.raises(StoreError) as caught:
        Memory(f"sqlite:///{path}")
    assert caught.value.message.startswith(f"SQLite database {path}: the folder {path.parent} does not exist")


def test_a_read_only_file_is_named(tmp_path: Path) -> None:
    """A real read-only connection's refusal, as the backend maps it."""
    path = tmp_path / "sgam.db"
    Memory(f"sqlite:///{path}").close()
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        with pytest.raises(StoreError) as caught, map_sqlite_errors(str(path)):
            conn.execute("CREATE TABLE t (x)")
    assert caught.value.message.startswith(f"SQLite database {path}: the file is read-only")
    assert "permissions" in caught.value.message


def test_a_closed_memory_says_so_for_reads_and_writes(tmp_path: Path) -> None:
    path = tmp_path / "sgam.db"
    memory = Memory(f"sqlite:///{path}")
    memory.close()
    for call in (lambda: memory.get("acme", "mira", "city"),
                 lambda: memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "x")):
        with pytest.raises(StoreError) as caught:
            call()
        assert caught.value.message.startswith(f"SQLite database {path}: this Memory is closed")
        assert "refused the change" not in caught.value.message

