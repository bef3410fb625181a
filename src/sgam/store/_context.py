"""What one call brings to the store besides its arguments: the API key its first
statement checks and the idempotent attempt its writes act for (``CallContext``).

A surface (HTTP, MCP) makes one per request from the authenticated caller and hands it,
as a value, to a bound view of the memory (``Memory.bound``); the view passes it to each
unit of work and read it opens. Nothing below the surfaces keeps it anywhere else: no
context variable, no pool that looks it up on checkout. The library's own calls carry
``NO_CONTEXT``: no key to check, no attempt.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class KeyToCheck:
    """An API key the call's store checks with the call's first statement, so that the
    check costs no round trip of its own (``Backend.checks_keys``): the store refuses the
    call with ``AuthenticationError``, before anything of it commits or is answered,
    unless the key is there, unrevoked, with this digest of its secret. ``checked`` turns
    true once a statement that checked it has succeeded: the call's later units of work
    send it no more."""

    tenant: str
    key_id: str
    digest: str
    checked: bool = False


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of an idempotent request: its tenant, key and the token naming it."""

    tenant: str
    key: str
    token: str
    started_at: int


@dataclass(frozen=True, slots=True)
class CallContext:
    """One call's key to check and the attempt it acts for (either may be absent)."""

    key: KeyToCheck | None = None
    attempt: Attempt | None = None

    def key_unchecked(self) -> KeyToCheck | None:
        """The key, while no statement has checked it yet."""
        key = self.key
        return None if key is None or key.checked else key

    def acting_for(self, tenant: str) -> Attempt | None:
        """The attempt, when it is the tenant's: only that tenant's writes mark it."""
        attempt = self.attempt
        return attempt if attempt is not None and attempt.tenant == tenant else None


NO_CONTEXT = CallContext()
"""A library call's context: nothing to check, no attempt."""
