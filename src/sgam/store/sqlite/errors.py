"""Map sqlite3 exceptions to sgam errors at the boundary, with one table."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from ..._errors import BusyError, ConflictError, SgamError, StoreError

DRIVER_ERRORS: dict[type[Exception], type[SgamError]] = {
    sqlite3.IntegrityError: ConflictError,
    sqlite3.OperationalError: StoreError,
    sqlite3.ProgrammingError: StoreError,
    sqlite3.InterfaceError: StoreError,
    sqlite3.DataError: StoreError,
    sqlite3.NotSupportedError: StoreError,
    sqlite3.InternalError: StoreError,
    sqlite3.DatabaseError: StoreError,
    sqlite3.Error: StoreError,
}

_BUSY_MARKERS = ("database is locked", "database is busy", "database table is locked")


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(m in str(exc) for m in _BUSY_MARKERS)


def sgam_error(exc: sqlite3.Error) -> SgamError:
    """The sgam error a driver error becomes."""
    if is_busy(exc):
        return BusyError(f"SQLite stayed busy: {exc}")
    for driver_type, sgam_type in DRIVER_ERRORS.items():
        if isinstance(exc, driver_type):
            return sgam_type(f"SQLite refused the change: {exc}")
    return StoreError(str(exc))  # pragma: no cover - the table ends in sqlite3.Error


@contextmanager
def map_sqlite_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise sgam_error(exc) from exc
