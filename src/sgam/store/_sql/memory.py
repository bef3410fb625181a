"""What a backend remembers about a tenant between statements: the one layer every
remembered answer of the portable statements goes through.

A portable read asks its ``TenantMemory`` and hands it the statement that answers when
nothing is remembered; caching is never an override of a statement. ``NO_MEMORY``
remembers nothing, so every question is its statement (PostgreSQL, whose transactions
see other connections' commits); SQLite's connection cache (``sqlite/cache.py``) answers
from what it remembers, kept true by its triggers and ``PRAGMA data_version``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from .ledger import Scoped

T = TypeVar("T")

Key = tuple[str, str, str]
"""(what, tenant, which): ``("consents", tenant, "")``, ``("attribute", tenant, name)``."""


class TenantMemory(Protocol):
    def recall(self, key: Key, load: Callable[[], T]) -> T:
        """What ``load`` answers, remembered under ``key`` while it stays true."""
        ...

    def may_have(self, key: Key, probe: Callable[[], bool]) -> bool:
        """Whether the tenant may have rows of a kind (consent statements, aliases,
        renames): what ``probe`` answers, or True when nothing is remembered, so that the
        caller's own statement answers."""
        ...

    def due(self, tenant: str, now: int, probe: Callable[[int], bool],
            next_deadline: Callable[[], int | None]) -> bool:
        """Whether anything of the tenant is past its deadline at ``now``: ``probe(now)``,
        or the tenant's next deadline (``next_deadline()``) remembered, which stays true
        as time passes until the instant it names."""
        ...


class Forgetful:
    """Remembers nothing: every question is its statement."""

    __slots__ = ()

    def recall(self, key: Key, load: Callable[[], T]) -> T:
        return load()

    def may_have(self, key: Key, probe: Callable[[], bool]) -> bool:
        return True

    def due(self, tenant: str, now: int, probe: Callable[[int], bool],
            next_deadline: Callable[[], int | None]) -> bool:
        return probe(now)


NO_MEMORY: TenantMemory = Forgetful()


class Remembering(Scoped):
    """The portable reads that ask the backend's memory first (lifecycle, subjects)."""

    _memory: TenantMemory = NO_MEMORY
    """What the backend remembers about the tenant; a backend sets it per read or unit of work."""

    def _ever_in(self, table: str, what: str) -> bool:
        """Whether the tenant may have any row of ``table`` (most tenants state no consent,
        alias no name and rename no attribute)."""
        return self._memory.may_have((what, self.tenant, ""), lambda: self._db.row(
            f"SELECT 1 FROM {table} WHERE tenant = ? LIMIT 1", (self.tenant,)) is not None)  # noqa: S608

    def _states_consent(self) -> bool:
        return self._ever_in("consents", "consents")

    def _aliased(self) -> bool:
        return self._ever_in("subject_resolution", "aliases")

    def _renamed(self) -> bool:
        return self._ever_in("attribute_resolution", "renames")
