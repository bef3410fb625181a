"""Tables of the network surfaces: API keys and idempotent request records.

The statements are portable (``?`` placeholders; the PostgreSQL backend rewrites them to
``%s``), so they are written once here and mixed into both backends' tenant-scoped
reader and write unit of work through ``_sql``. Every statement names the tenant, and on
PostgreSQL both tables sit under the same row-level security as the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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
    the response it got (``status`` None while the first attempt is in flight)."""

    tenant: str
    key: str
    request_digest: str
    created_at: int
    status: int | None
    response: str | None


_KEY_COLUMNS = "tenant, key_id, scope, digest, created_at, revoked_at"
_IDEMPOTENCY_COLUMNS = "tenant, idempotency_key, request_digest, created_at, status, response"


class AccessReads:
    """Tenant-scoped reads of keys and idempotency records (reader and write unit of work)."""

    tenant: str
    # Supplied by the backend: run one statement and return the rows a SELECT returned
    # (none for a change); bind a time (microseconds since the epoch) as it stores times.
    _sql: Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
    _moment: Callable[[int], Any]

    def api_key(self, key_id: str) -> ApiKeyRow | None:
        rows = self._sql(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant = ? AND key_id = ?",
                         (self.tenant, key_id))
        return ApiKeyRow(*rows[0]) if rows else None

    def api_keys(self) -> list[ApiKeyRow]:
        rows = self._sql(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant = ? ORDER BY created_at, key_id",
                         (self.tenant,))
        return [ApiKeyRow(*row) for row in rows]

    def idempotency(self, key: str) -> IdempotencyRow | None:
        rows = self._sql(f"SELECT {_IDEMPOTENCY_COLUMNS} FROM idempotency_keys "
                         "WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))
        return IdempotencyRow(*rows[0]) if rows else None


class AccessWrites(AccessReads):
    """Changes to keys and idempotency records inside one write unit of work."""

    def insert_api_key(self, row: ApiKeyRow) -> None:
        self._sql(f"INSERT INTO api_keys ({_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                  (self.tenant, row.key_id, row.scope, row.digest, self._moment(row.created_at), None))

    def revoke_api_key(self, key_id: str, revoked_at: int) -> None:
        self._sql("UPDATE api_keys SET revoked_at = ? WHERE tenant = ? AND key_id = ? AND revoked_at IS NULL",
                  (self._moment(revoked_at), self.tenant, key_id))

    def reserve_idempotency(self, key: str, request_digest: str, created_at: int) -> None:
        """Record the first attempt of a request (replacing an abandoned reservation)."""
        self._sql("DELETE FROM idempotency_keys WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))
        self._sql(f"INSERT INTO idempotency_keys ({_IDEMPOTENCY_COLUMNS}) VALUES (?, ?, ?, ?, NULL, NULL)",
                  (self.tenant, key, request_digest, self._moment(created_at)))

    def finish_idempotency(self, key: str, status: int, response: str) -> None:
        self._sql("UPDATE idempotency_keys SET status = ?, response = ? WHERE tenant = ? AND idempotency_key = ?",
                  (status, response, self.tenant, key))

    def release_idempotency(self, key: str) -> None:
        """Forget a reservation whose request failed on the server side, so a retry acts."""
        self._sql("DELETE FROM idempotency_keys WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))

    def expire_idempotency(self, before: int) -> None:
        self._sql("DELETE FROM idempotency_keys WHERE tenant = ? AND created_at < ?",
                  (self.tenant, self._moment(before)))
