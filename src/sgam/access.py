"""API keys: who may call sgam over the network, for which tenant, with which scope.

A key reads ``sgam_<tenant>.<id>.<secret>``: the tenant part (URL-safe base64) tells the
store where to look — under PostgreSQL's row-level security a lookup needs the tenant —
and the id names the key for listing and revoking. Only a SHA-256 digest of the secret is
stored (the secret is 256 random bits, so a slow hash would add nothing), compared in
constant time. Every request looks its key up again, so a revocation takes effect on the
next request. Any surface (HTTP, MCP, a web UI's sign-in and its session check) gets its
``Principal`` here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

from ._core.errors import AuthenticationError as AuthenticationError  # its home before the store raised it
from ._core.errors import ForbiddenError as ForbiddenError  # its home before a review refused with it
from ._core.errors import NotFoundError, ValidationError
from ._core.time import from_micros, to_micros
from ._core.values import check_tenant
from .memory.facade import Memory
from .store import Attempt, CallContext, KeyToCheck, WriteTransaction
from .store._access import ApiKeyRow

Scope = Literal["read", "write", "admin"]
SCOPES: tuple[Scope, ...] = ("read", "write", "admin")
KEY_PREFIX = "sgam_"
MAX_KEY_CHARS = 512
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller: the tenant and scope come from its key, never the request."""

    tenant: str
    key_id: str
    scope: Scope

    def allows(self, needed: Scope) -> bool:
        return SCOPES.index(self.scope) >= SCOPES.index(needed)

    def require(self, needed: Scope) -> None:
        if not self.allows(needed):
            raise ForbiddenError(f"this key has scope {self.scope!r}; the call needs {needed!r}")


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key as listed: never its secret."""

    id: str
    tenant: str
    scope: Scope
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A key just created: ``key`` is shown once and cannot be recovered later."""

    id: str
    key: str
    tenant: str
    scope: Scope


def create_key(memory: Memory, tenant: str, scope: str = "read") -> IssuedKey:
    """Issue a new key for ``tenant`` with ``scope`` (read < write < admin)."""
    check_tenant(tenant)
    checked = check_scope(scope)
    key_id = f"{_tenant_part(tenant)}.{secrets.token_urlsafe(9)}"
    secret = secrets.token_urlsafe(32)
    row = ApiKeyRow(tenant, key_id, scope, _digest(secret), to_micros(memory.clock()), None)
    memory.backend.run_write(tenant, lambda txn: txn.insert_api_key(row))
    return IssuedKey(key_id, f"{KEY_PREFIX}{key_id}.{secret}", tenant, checked)


def list_keys(memory: Memory, tenant: str) -> list[ApiKey]:
    """The tenant's keys, oldest first, revoked ones included."""
    with memory.backend.read(check_tenant(tenant)) as reader:
        return [_api_key(row) for row in reader.api_keys()]


def revoke_key(memory: Memory, key_id: str) -> ApiKey:
    """Revoke a key by id (its tenant is part of the id); revoking twice changes nothing."""
    tenant = _tenant_of_id(key_id)
    if tenant is None:
        raise NotFoundError(f"no API key {key_id!r}")

    def revoke(txn: WriteTransaction) -> ApiKeyRow | None:
        txn.revoke_api_key(key_id, to_micros(memory.clock()))
        return txn.api_key(key_id)

    row = memory.backend.run_write(tenant, revoke)
    if row is None:
        raise NotFoundError(f"no API key {key_id!r}")
    return _api_key(row)


def authenticate(memory: Memory, key: object) -> Principal:
    """The principal of a presented key; ``AuthenticationError`` for anything else."""
    parts = _parse(key)
    if parts is None:
        raise AuthenticationError("missing, malformed, unknown or revoked API key")
    tenant, key_id, secret = parts
    with memory.backend.read_one(tenant) as reader:
        row = reader.api_key(key_id)
    stored = row.digest if row is not None else _digest("")
    if not hmac.compare_digest(stored, _digest(secret)) or row is None or row.revoked_at is not None:
        raise AuthenticationError("missing, malformed, unknown or revoked API key")
    return Principal(tenant, key_id, check_scope(row.scope))


def checked_call(memory: Memory, key: str, call: Callable[[Memory], R], attempt: Attempt | None = None) -> R:
    """``call`` on ``memory`` bound to a key that authenticated before, its row read again:
    by the first statement of the call's first unit of work or read where the store can
    (``Backend.checks_keys``: no round trip of its own), else just before the call; after
    it when the call reached no statement (it then changed nothing) or failed before one
    succeeded. ``attempt``: the idempotent attempt the call's writes act for.
    ``AuthenticationError`` when the key is not live: then nothing of the call committed
    and nothing it read is returned."""
    parts = _parse(key)
    if parts is None:
        raise AuthenticationError("missing, malformed, unknown or revoked API key")
    if not memory.backend.checks_keys:
        authenticate(memory, key)
        return call(memory.bound(CallContext(attempt=attempt)))
    tenant, key_id, secret = parts
    check = KeyToCheck(tenant, key_id, _digest(secret))
    try:
        return call(memory.bound(CallContext(check, attempt)))
    finally:
        if not check.checked:
            authenticate(memory, key)


def fingerprint(key: object) -> tuple[str, str] | None:
    """The id of a well-formed key and the digest of its secret, read without the store:
    what a cache of keys that authenticated before matches a presented key on (a key's
    tenant, scope and digest never change; only its revocation does)."""
    parts = _parse(key)
    return None if parts is None else (parts[1], _digest(parts[2]))


def principal_of(memory: Memory, key_id: str) -> Principal | None:
    """The principal of a live key by id, or None if unknown or revoked: a session that
    signed in with a key re-checks it this way on every request."""
    tenant = _tenant_of_id(key_id)
    if tenant is None:
        return None
    with memory.backend.read_one(tenant) as reader:
        row = reader.api_key(key_id)
    if row is None or row.revoked_at is not None:
        return None
    return Principal(tenant, key_id, check_scope(row.scope))


def _parse(key: object) -> tuple[str, str, str] | None:
    if not isinstance(key, str) or len(key) > MAX_KEY_CHARS or not key.startswith(KEY_PREFIX):
        return None
    parts = key[len(KEY_PREFIX):].split(".")
    if len(parts) != 3 or not all(parts):
        return None
    tenant = _tenant_of_id(f"{parts[0]}.{parts[1]}")
    return None if tenant is None else (tenant, f"{parts[0]}.{parts[1]}", parts[2])


def _tenant_part(tenant: str) -> str:
    return base64.urlsafe_b64encode(tenant.encode()).decode().rstrip("=")


def _tenant_of_id(key_id: object) -> str | None:
    if not isinstance(key_id, str) or key_id.count(".") != 1 or len(key_id) > MAX_KEY_CHARS:
        return None
    encoded = key_id.split(".")[0]
    try:
        tenant = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
        return check_tenant(tenant) if _tenant_part(tenant) == encoded else None
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_scope(value: str) -> Scope:
    """``value`` as a scope, or a ``ValidationError`` naming it."""
    for scope in SCOPES:
        if value == scope:
            return scope
    raise ValidationError("scope", value, f"must be one of {', '.join(SCOPES)}")


def _api_key(row: ApiKeyRow) -> ApiKey:
    return ApiKey(row.key_id, row.tenant, check_scope(row.scope), from_micros(row.created_at),
                  None if row.revoked_at is None else from_micros(row.revoked_at))
