"""The server backend: PostgreSQL with row-level security by tenant, for multi-tenant
services. ``migrate`` installs or upgrades the schema as the owner role."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from .._backend import Backend
from .backend import PostgresBackend
from .install import migrate, temporary_database


def open_store(url: str, **options: Any) -> Backend:
    """Typed as ``Backend`` so that the type checker holds the backend to the whole contract."""
    return PostgresBackend(url, **options)


def temporary_store(url: str | None) -> AbstractContextManager[str]:
    """A new database on the server of ``url`` (an admin URL), dropped afterwards."""
    assert url is not None
    return temporary_database(url)


def migrate_store(url: str, grant_to: Iterable[str] = ()) -> int:
    return migrate(url, grant_to=grant_to)


__all__ = ["PostgresBackend", "migrate", "migrate_store", "open_store", "temporary_database", "temporary_store"]
