"""API keys and idempotent request records: statements written once for both backends.
Every statement names the tenant; on PostgreSQL both tables sit under the same row-level
security as the ledger."""

from __future__ import annotations

from collections.abc import Sequence

from .._access import ApiKeyRow, IdempotencyRow
from .ledger import Scoped
from .session import chunks, in_list

_KEY_COLUMNS = "tenant, key_id, scope, digest, created_at, revoked_at"
_IDEMPOTENCY_COLUMNS = ("tenant, idempotency_key, request_digest, created_at, status, response, attempt, acted_at, "
                        "erased_at")


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

    def reserve_idempotency(self, key: str, request_digest: str, created_at: int, attempt: str) -> bool:
        """Record the first attempt of a request; False when another attempt holds the
        key (never replaces a row: a concurrent request may have just committed it)."""
        return self._db.count(
            f"INSERT INTO idempotency_keys ({_IDEMPOTENCY_COLUMNS}) VALUES (?, ?, ?, ?, NULL, NULL, ?, NULL, NULL) "
            "ON CONFLICT DO NOTHING",
            (self.tenant, key, request_digest, self._db.moment(created_at), attempt)) == 1

    def take_over_idempotency(self, key: str, abandoned: str, attempt: str, created_at: int) -> bool:
        """Hand an abandoned reservation that never acted to ``attempt``; False when
        ``abandoned`` no longer holds it or has acted since it was read."""
        return self._db.count(
            "UPDATE idempotency_keys SET attempt = ?, created_at = ? WHERE tenant = ? AND idempotency_key = ? "
            "AND attempt = ? AND status IS NULL AND acted_at IS NULL",
            (attempt, self._db.moment(created_at), self.tenant, key, abandoned)) == 1

    def claim_idempotency(self, key: str, attempt: str, acted_at: int) -> bool:
        """Inside a write made for ``attempt``: mark the reservation as acted on, in the
        write's own transaction; False when the attempt no longer holds the key."""
        return self._db.count(
            "UPDATE idempotency_keys SET acted_at = COALESCE(acted_at, ?) "
            "WHERE tenant = ? AND idempotency_key = ? AND attempt = ?",
            (self._db.moment(acted_at), self.tenant, key, attempt)) == 1

    def finish_idempotency(self, key: str, attempt: str, status: int, response: str) -> None:
        """Store the response of ``attempt`` (emptied if an erasure came while it ran)."""
        self._db.run("UPDATE idempotency_keys SET status = ?, "
                     "response = CASE WHEN erased_at IS NULL THEN ? ELSE '' END "
                     "WHERE tenant = ? AND idempotency_key = ? AND attempt = ? AND status IS NULL",
                     (status, response, self.tenant, key, attempt))

    def release_idempotency(self, key: str, attempt: str) -> bool:
        """Forget a reservation whose request failed on the server side before any of its
        writes committed, so a retry acts; False (kept) once one has."""
        return self._db.count("DELETE FROM idempotency_keys WHERE tenant = ? AND idempotency_key = ? "
                              "AND attempt = ? AND acted_at IS NULL", (self.tenant, key, attempt)) == 1

    def expire_idempotency(self, before: int) -> None:
        self._db.run("DELETE FROM idempotency_keys WHERE tenant = ? AND created_at < ?",
                     (self.tenant, self._db.moment(before)))

    def idempotency_responses_naming(self, needles: Sequence[str]) -> list[IdempotencyRow]:
        """Stored responses that contain any of ``needles`` (an erasure decides which of
        them quote what it removes)."""
        found: dict[str, IdempotencyRow] = {}
        for needle in dict.fromkeys(needles):
            for row in self._db.rows(f"SELECT {_IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE tenant = ? "
                                     f"AND erased_at IS NULL AND {self._db.find}(response, ?) > 0",
                                     (self.tenant, needle)):
                stored = IdempotencyRow(*row)
                found[stored.key] = stored
        return list(found.values())

    def redact_idempotency(self, keys: Sequence[str], erased_at: int, acting: str | None = None) -> None:
        """Erasure: empty the stored responses of ``keys`` (the record stays, so a retry
        is told the response was erased instead of acting again), and mark the requests
        still in flight, whose responses are stored emptied; all but ``acting``, the
        request this erasure runs for (what it answers is read after the erasure)."""
        for batch in chunks(list(dict.fromkeys(keys))):
            self._db.run("UPDATE idempotency_keys SET response = '', erased_at = ? WHERE tenant = ? "
                         f"AND {in_list('idempotency_key', len(batch))}",
                         (self._db.moment(erased_at), self.tenant, *batch))
        self._db.run("UPDATE idempotency_keys SET erased_at = ? WHERE tenant = ? AND status IS NULL "
                     "AND idempotency_key <> ?", (self._db.moment(erased_at), self.tenant, acting or ""))
