"""One registry from URL scheme to backend family: opening a store, a temporary store for
a replay, and migrating a schema all look the family up here. A third backend is one new
package implementing ``BackendFamily`` and one line in ``FAMILIES``."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol, cast

from .._core.errors import ValidationError
from ._backend import Backend


class BackendFamily(Protocol):
    """What a backend package offers at module level."""

    def open_store(self, url: str, **options: Any) -> Backend: ...

    def temporary_store(self, url: str | None) -> AbstractContextManager[str]:
        """A fresh, empty store of this family for one replay scenario, removed afterwards."""
        ...

    def migrate_store(self, url: str, grant_to: Iterable[str]) -> int:
        """Install or upgrade the schema at ``url``; the version now installed."""
        ...


FAMILIES: dict[str, str] = {
    "sqlite": "sgam.store.sqlite",
    "postgresql": "sgam.store.postgres",
    "postgres": "sgam.store.postgres",
}
"""URL scheme -> the package of its backend, imported only when a URL asks for it."""


def family_of(url: str) -> BackendFamily:
    scheme = url.partition(":")[0] if isinstance(url, str) else ""
    if scheme not in FAMILIES or not url.startswith(f"{scheme}:"):
        raise ValidationError("db", url, "must start with sqlite:/// or postgresql://")
    try:
        module = importlib.import_module(FAMILIES[scheme])
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ValidationError("db", url, f"the {scheme} backend is unavailable: {exc}") from None
    return cast(BackendFamily, module)


def open_backend(url: str, **options: Any) -> Backend:
    return family_of(url).open_store(url, **options)


def temporary_store(url: str | None) -> AbstractContextManager[str]:
    """A fresh, empty store for one replay scenario, removed afterwards: without a URL a new
    SQLite file in a temporary folder; with a server URL a new database, dropped after."""
    return family_of(url or "sqlite:///").temporary_store(url)


def migrate_store(url: str, grant_to: Iterable[str] = ()) -> int:
    return family_of(url).migrate_store(url, grant_to)
