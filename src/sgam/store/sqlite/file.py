"""What a read scope and the search index use of the backend that made them: its one
connection, the lock that serialises it, the file's path (for error messages) and the
connection's cache. The backend satisfies it; naming it here, not the backend, lets the
backend import its reader and its index without either importing the backend back."""

from __future__ import annotations

import sqlite3
import threading
from typing import Protocol

from .cache import Cache


class SQLiteFile(Protocol):
    """One SQLite file opened by a backend: every statement runs on ``_conn`` under
    ``_lock``."""

    path: str
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _cache: Cache
    _data_version: int
    export_lanes: int
    """Processes an export's read builds its lines on besides it (``lanes.py``)."""

    def _check_data_version(self) -> None:
        """Inside a transaction: forget what the cache holds if another connection has
        committed since it was last checked."""
        ...
