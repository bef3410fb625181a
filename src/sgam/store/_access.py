"""Rows of the network surfaces' tables: API keys and idempotent request records (their
statements, written once for both backends, are in ``_sql/access.py``)."""

from __future__ import annotations

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
