"""The embedded default: one SQLite file, no server, the full feature set."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..._core.errors import ValidationError
from .._backend import Backend
from .backend import SQLiteBackend


def sqlite_path(url: str) -> str:
    """``sqlite:///relative.db``, ``sqlite:////absolute.db`` or ``sqlite:///:memory:``."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValidationError("db", url, "a SQLite URL looks like sqlite:///./sgam.db")
    return url[len(prefix):]


def open_store(url: str, **options: Any) -> Backend:
    """Typed as ``Backend`` so that the type checker holds the backend to the whole contract."""
    return SQLiteBackend(sqlite_path(url), **options)


@contextmanager
def temporary_store(url: str | None) -> Iterator[str]:
    """A new SQLite file in a temporary folder (any ``url`` given is not used)."""
    with tempfile.TemporaryDirectory(prefix="sgam-replay-") as folder:
        yield f"sqlite:///{Path(folder) / 'replay.db'}"


def migrate_store(url: str, grant_to: Iterable[str] = ()) -> int:
    """A SQLite file migrates itself when opened; roles do not exist here."""
    backend = open_store(url)
    try:
        return backend.schema_version()
    finally:
        backend.close()


__all__ = ["SQLiteBackend", "migrate_store", "open_store", "sqlite_path", "temporary_store"]
