"""Every sqlite3 exception class leaves the backend as an sgam error."""

from __future__ import annotations

import inspect
import sqlite3

import pytest

from sgam import BusyError, ConflictError, SgamError, StoreError
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
