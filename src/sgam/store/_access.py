"""Rows of the network surfaces' tables: API keys and idempotent request records (their
statements, written once for both backends, are in ``_sql/access.py``)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ApiKeyRow:
    """One API key: only the digest of its secret is stored; ``revoked_at`` ends it."""

    tenant: str
    key_id: str
    scope: str
    digest: str
    created_at: int
    revoked_at: int | None


@dataclass(frozen=True, slots=True)
class IdempotencyRow:
    """A POST made with an ``Idempotency-Key``: the request's digest and, once answered,
    the response it got (``status`` None while the first attempt is in flight).
    ``attempt`` names the attempt holding the key; ``acted_at`` is set by the first write
    committed for it; ``erased_at`` by an erasure committed while it was in flight."""

    tenant: str
    key: str
    request_digest: str
    created_at: int
    status: int | None
    response: str | None
    attempt: str
    acted_at: int | None
    erased_at: int | None


@dataclass(slots=True)
class KeyToCheck:
    """An API key the current call's store checks with the call's first statement, so
    that the check costs no round trip of its own (``Backend.checks_keys``): the store
    refuses the call with ``AuthenticationError``, before anything of it commits or is
    answered, unless the key is there, unrevoked, with this digest of its secret.
    ``checked`` turns true once a statement that checked it has succeeded; ``taken``
    while a caller holds it to send with its own first statement."""

    tenant: str
    key_id: str
    digest: str
    checked: bool = False
    taken: bool = False


KEY_TO_CHECK: ContextVar[KeyToCheck | None] = ContextVar("sgam_key_to_check", default=None)
"""The key the running call must have checked by its store (set around one call)."""


def key_to_check() -> KeyToCheck | None:
    """The running call's key, while no statement has checked it yet."""
    key = KEY_TO_CHECK.get()
    return None if key is None or key.checked else key
