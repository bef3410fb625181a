"""Map sqlite3 exceptions to sgam errors at the boundary, with one table."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..._core.errors import BusyError, ConflictError, SgamError, StoreError

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


def sgam_error(exc: sqlite3.Error, path: str | None = None) -> SgamError:
    """The sgam error a driver error becomes; its message names the file and the cause."""
    where = f"SQLite database {path}" if path else "SQLite"
    if is_busy(exc):
        return BusyError(f"{where} stayed busy: {exc}")
    for driver_type, sgam_type in DRIVER_ERRORS.items():
        if isinstance(exc, driver_type):
            if sgam_type is ConflictError:
                return ConflictError(f"{where} refused the change: {exc}")
            return sgam_type(f"{where}: {cause(exc, path)}")
    return StoreError(f"{where}: {exc}")  # pragma: no cover - the table ends in sqlite3.Error


def cause(exc: sqlite3.Error, path: str | None) -> str:
    """What the driver's words mean for the user, keeping those words."""
    text = str(exc)
    lowered = text.lower()
    if "readonly database" in lowered:
        return f"the file is read-only ({text}): check the permissions of the file and of its folder"
    if "closed database" in lowered:
        return f"this Memory is closed ({text}): open a new one"
    if "unable to open database file" in lowered and path and path != ":memory:":
        folder = Path(path).expanduser().resolve().parent
        if not folder.is_dir():
            return f"the folder {folder} does not exist ({text})"
        return f"the file cannot be opened ({text}): check the path and its permissions"
    if "file is not a database" in lowered:
        return f"the file is not an SQLite database ({text})"
    return text


@contextmanager
def map_sqlite_errors(path: str | None = None) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise sgam_error(exc, path) from exc
