"""API keys and idempotent request records: statements written once for both backends.
Every statement names the tenant; on PostgreSQL both tables sit under the same row-level
security as the ledger."""

from __future__ import annotations

from .._access import ApiKeyRow, IdempotencyRow
from .ledger import Scoped

_KEY_COLUMNS = "tenant, key_id, scope, digest, created_at, revoked_at"
_IDEMPOTENCY_COLUMNS = "tenant, idempotency_key, request_digest, created_at, status, response"


class AccessReads(Scoped):
    """Tenant-scoped reads of keys and idempotency records (reader and write unit of work)."""

    def api_key(self, key_id: str) -> ApiKeyRow | None:
        row = self._db.row(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant = ? AND key_id = ?",
                           (self.tenant, key_id))
        return ApiKeyRow(*row) if row else None

    def api_keys(self) -> list[ApiKeyRow]:
        rows = self._db.rows(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant = ? ORDER BY created_at, key_id",
                             (self.tenant,))
        return [ApiKeyRow(*row) for row in rows]

    def idempotency(self, key: str) -> IdempotencyRow | None:
        row = self._db.row(f"SELECT {_IDEMPOTENCY_COLUMNS} FROM idempotency_keys "
                           "WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))
        return IdempotencyRow(*row) if row else None


class AccessWrites(AccessReads):
    """Changes to keys and idempotency records inside one write unit of work."""

    def insert_api_key(self, row: ApiKeyRow) -> None:
        self._db.run(f"INSERT INTO api_keys ({_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                     (self.tenant, row.key_id, row.scope, row.digest, self._db.moment(row.created_at), None))

    def revoke_api_key(self, key_id: str, revoked_at: int) -> None:
        self._db.run("UPDATE api_keys SET revoked_at = ? WHERE tenant = ? AND key_id = ? AND revoked_at IS NULL",
                     (self._db.moment(revoked_at), self.tenant, key_id))

    def reserve_idempotency(self, key: str, request_digest: str, created_at: int) -> None:
        """Record the first attempt of a request (replacing an abandoned reservation)."""
        self._db.run("DELETE FROM idempotency_keys WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))
        self._db.run(f"INSERT INTO idempotency_keys ({_IDEMPOTENCY_COLUMNS}) VALUES (?, ?, ?, ?, NULL, NULL)",
                     (self.tenant, key, request_digest, self._db.moment(created_at)))

    def finish_idempotency(self, key: str, status: int, response: str) -> None:
        self._db.run("UPDATE idempotency_keys SET status = ?, response = ? WHERE tenant = ? AND idempotency_key = ?",
                     (status, response, self.tenant, key))

    def release_idempotency(self, key: str) -> None:
        """Forget a reservation whose request failed on the server side, so a retry acts."""
        self._db.run("DELETE FROM idempotency_keys WHERE tenant = ? AND idempotency_key = ?", (self.tenant, key))

    def expire_idempotency(self, before: int) -> None:
        self._db.run("DELETE FROM idempotency_keys WHERE tenant = ? AND created_at < ?",
                     (self.tenant, self._db.moment(before)))
