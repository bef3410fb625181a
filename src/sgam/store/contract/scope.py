"""How every capability is scoped: to one tenant, inside the caller's read or unit of work.

A capability is reached one way: asked of the read or unit of work (``Reader``,
``WriteTransaction``), whose snapshot and transaction it shares; what the unit of work
hands out as an object (``documents()``, ``checkpoints()``, ``portable()``, ``session()``)
is bound to that same tenant and session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._sql.session import Session


class Scope(Protocol):
    """Every capability is scoped to one tenant."""

    tenant: str


class Statements(Scope, Protocol):
    """The statements of a read or unit of work, for the store's own indexes (a backend's
    search index, re-embedding's statements) that run SQL in the caller's snapshot. Code
    above the store asks for a capability, never for statements."""

    def session(self) -> Session:
        """The session this read or unit of work runs its statements on, bound to its
        tenant's transaction."""
        ...
