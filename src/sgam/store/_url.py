"""Turn a database URL into a backend."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._errors import ValidationError
from ._backend import Backend


def sqlite_path(url: str) -> str:
    """``sqlite:///relative.db``, ``sqlite:////absolute.db`` or ``sqlite:///:memory:``."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ValidationError("db", url, "a SQLite URL looks like sqlite:///./sgam.db")
    return url[len(prefix):]


def open_backend(url: str, **options: Any) -> Backend:
    if url.startswith("sqlite:"):
        from .sqlite import SQLiteBackend

        return SQLiteBackend(sqlite_path(url), **options)
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresBackend
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ValidationError("db", url, f"the PostgreSQL backend is unavailable: {exc}") from None
        return PostgresBackend(url, **options)
    raise ValidationError("db", url, "must start with sqlite:/// or postgresql://")


@contextmanager
def temporary_store(url: str | None) -> Iterator[str]:
    """A fresh, empty store for one replay scenario, removed afterwards.

    Without a URL: a new SQLite file in a temporary folder. With a PostgreSQL URL: a new
    database on that server, dropped afterwards."""
    if url is None or url.startswith("sqlite:"):
        with tempfile.TemporaryDirectory(prefix="sgam-replay-") as folder:
            yield f"sqlite:///{Path(folder) / 'replay.db'}"
        return
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import temporary_database

        with temporary_database(url) as fresh:
            yield fresh
        return
    raise ValidationError("db", url, "must start with sqlite:/// or postgresql://")
