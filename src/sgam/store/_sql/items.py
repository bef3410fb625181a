"""The statements of the LangGraph store's items and of the action ledger that both
backends share. Looking items up in bulk, ranking them by text and keeping their text
index in step stay with each backend (FTS5 rows there, a generated ``tsvector`` here)."""

from __future__ import annotations

from typing import Any

from .._records import ActionRow, ItemRow
from .ledger import Scoped

ITEM_COLUMNS = (
    "tenant, namespace, key, value, created_at, updated_at, expires_at, ttl_minutes, index_text, vectors, dims"
)
ACTION_COLUMNS = "tenant, action_key, request, status, result, error, attempts, started_at, finished_at, thread_id"
LIVE = "value IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)"


def under(prefix: str | None) -> tuple[str, tuple[Any, ...]]:
    """The namespace and those below it. Labels hold no dot, so every one of them sorts
    in ``[prefix, prefix + "/")`` bytewise ('/' follows '.'): one index range, then an
    exact test for the few names there that only start like it."""
    if prefix is None:
        return "", ()
    return (" AND namespace >= ? AND namespace < ? AND (namespace = ? OR namespace >= ?)",
            (prefix, prefix + "/", prefix, prefix + "."))


def item_from_row(row: tuple[Any, ...]) -> ItemRow:
    """An ``ITEM_COLUMNS`` row (vectors as ``bytes`` whatever buffer the driver gave)."""
    values = list(row)
    if values[9] is not None:
        values[9] = bytes(values[9])
    return ItemRow(*values)


class ItemReads(Scoped):
    """Reads the reader and the write unit of work share."""

    def item_namespaces(self, prefix: str | None, now: int) -> list[str]:
        where, params = under(prefix)
        rows = self._db.rows(
            f"SELECT DISTINCT namespace FROM store_items WHERE tenant = ? AND {LIVE}{where} ORDER BY namespace",
            (self.tenant, self._db.moment(now), *params),
        )
        return [str(row[0]) for row in rows]

    def action(self, action_key: str) -> ActionRow | None:
        row = self._db.row(f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ? AND action_key = ?",
                           (self.tenant, action_key))
        return ActionRow(*row) if row else None

    def actions(self, status: str | None, limit: int) -> list[ActionRow]:
        where, params = ("AND status = ?", (status,)) if status is not None else ("", ())
        rows = self._db.rows(f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ? {where} ORDER BY seq LIMIT ?",
                             (self.tenant, *params, limit))
        return [ActionRow(*row) for row in rows]

    def actions_of_thread(self, thread_id: str, limit: int) -> list[ActionRow]:
        rows = self._db.rows(f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ? AND thread_id = ? "
                             "ORDER BY seq LIMIT ?", (self.tenant, thread_id, limit))
        return [ActionRow(*row) for row in rows]


class ItemWrites(ItemReads):
    """Item and action changes inside a write unit of work."""

    def expired_items(self, now: int, limit: int) -> list[ItemRow]:
        rows = self._db.rows(
            f"SELECT {ITEM_COLUMNS} FROM store_items INDEXED BY store_items_expiry WHERE tenant = ? "
            "AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?",
            (self.tenant, self._db.moment(now), limit),
        )
        return [item_from_row(row) for row in rows]

    def set_key_expiry(self, subject: str, attribute: str, expires_at: int | None) -> None:
        self._db.run("UPDATE operations SET expires_at = ? WHERE tenant = ? AND subject = ? AND attribute = ?",
                     (self._db.moment(expires_at), self.tenant, subject, attribute))

    def insert_action(self, row: ActionRow) -> None:
        moment = self._db.moment
        self._db.run(
            f"INSERT INTO actions ({ACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, row.action_key, row.request, row.status, row.result, row.error, row.attempts,
             moment(row.started_at), moment(row.finished_at), row.thread_id),
        )

    def update_action(self, row: ActionRow) -> None:
        self._db.run(
            "UPDATE actions SET status = ?, result = ?, error = ?, attempts = ?, finished_at = ? "
            "WHERE tenant = ? AND action_key = ?",
            (row.status, row.result, row.error, row.attempts, self._db.moment(row.finished_at), self.tenant,
             row.action_key),
        )
