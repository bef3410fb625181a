"""SQLite tables of the LangGraph store and the action ledger.

``store_items`` holds each item's current state (the ledger holds its history), with
the text and vectors its search needs; ``store_items_fts`` is its full-text index, kept
in step by ``put_item`` and ``delete_item`` (rowid = ``row_id``). ``SQLiteWrite`` and
``SQLiteReader`` mix these in; every statement is scoped by tenant.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .._protocol import ActionRow, ItemRow
from .fts import fts_query

ITEM_COLUMNS = (
    "tenant, namespace, key, value, created_at, updated_at, expires_at, ttl_minutes, index_text, vectors, dims"
)
ACTION_COLUMNS = "tenant, action_key, request, status, result, error, attempts, started_at, finished_at"
_LIVE = "value IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)"


def _under(prefix: str | None) -> tuple[str, tuple[Any, ...]]:
    """The namespace and those below it. Labels hold no dot, so every one of them sorts
    in ``[prefix, prefix + "/")`` ('/' follows '.'): one index range, then an exact test
    for the few names there that only start like it."""
    if prefix is None:
        return "", ()
    return (" AND namespace >= ? AND namespace < ? AND (namespace = ? OR namespace >= ?)",
            (prefix, prefix + "/", prefix, prefix + "."))


class ItemReads:
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    _conn: sqlite3.Connection
    tenant: str

    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        found: list[ItemRow] = []
        for namespace, key in dict.fromkeys(keys):
            row = self._conn.execute(
                f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?",
                (self.tenant, namespace, key),
            ).fetchone()
            if row:
                found.append(ItemRow(*row))
        return found

    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        where, params = _under(prefix)
        # under a prefix, range over (tenant, namespace, key) and sort what is there ("+"
        # keeps the planner from walking the whole tenant in updated_at order instead)
        order = "+updated_at DESC" if prefix is not None else "updated_at DESC"
        rows = self._conn.execute(
            f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = ? AND {_LIVE}{where} "
            f"ORDER BY {order}, namespace, key LIMIT ? OFFSET ?",
            (self.tenant, now, *params, -1 if limit is None else limit, offset),
        ).fetchall()
        return [ItemRow(*row) for row in rows]

    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        if not terms:
            return []
        where, params = _under(prefix)
        rows = self._conn.execute(
            # CROSS JOIN keeps the full-text match as the outer loop: the planner would
            # otherwise range over the prefix and run the MATCH once per row
            "SELECT namespace, key FROM store_items_fts CROSS JOIN store_items ON row_id = store_items_fts.rowid "
            f"WHERE store_items_fts MATCH ? AND tenant = ? AND {_LIVE}{where} "
            "ORDER BY bm25(store_items_fts), namespace, key LIMIT ?",
            (fts_query(terms), self.tenant, now, *params, limit),
        ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def item_namespaces(self, prefix: str | None, now: int) -> list[str]:
        where, params = _under(prefix)
        rows = self._conn.execute(
            f"SELECT DISTINCT namespace FROM store_items WHERE tenant = ? AND {_LIVE}{where} ORDER BY namespace",
            (self.tenant, now, *params),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def action(self, action_key: str) -> ActionRow | None:
        row = self._conn.execute(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ? AND action_key = ?", (self.tenant, action_key)
        ).fetchone()
        return ActionRow(*row) if row else None

    def actions(self, status: str | None, limit: int) -> list[ActionRow]:
        where, params = ("AND status = ?", (status,)) if status is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ? {where} ORDER BY seq LIMIT ?",
            (self.tenant, *params, limit),
        ).fetchall()
        return [ActionRow(*row) for row in rows]


class ItemWrites(ItemReads):
    """Item and action changes inside a write unit of work."""

    def put_item(self, row: ItemRow) -> None:
        old = self._conn.execute(
            "SELECT row_id FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?",
            (self.tenant, row.namespace, row.key),
        ).fetchone()
        if old:
            self._conn.execute("DELETE FROM store_items_fts WHERE rowid = ?", (old[0],))
        cursor = self._conn.execute(
            f"INSERT INTO store_items ({ITEM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, "
            "created_at = excluded.created_at, updated_at = excluded.updated_at, "
            "expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, "
            "index_text = excluded.index_text, vectors = excluded.vectors, dims = excluded.dims "
            "RETURNING row_id",
            (self.tenant, row.namespace, row.key, row.value, row.created_at, row.updated_at, row.expires_at,
             row.ttl_minutes, row.index_text, row.vectors, row.dims),
        )
        row_id = cursor.fetchone()[0]
        if row.index_text:
            self._conn.execute("INSERT INTO store_items_fts (rowid, index_text) VALUES (?, ?)",
                               (row_id, row.index_text))

    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        self._conn.executemany(
            "UPDATE store_items SET expires_at = ? + CAST(ttl_minutes * 60000000 AS INTEGER) "
            f"WHERE tenant = ? AND namespace = ? AND key = ? AND ttl_minutes IS NOT NULL AND {_LIVE}",
            [(now, self.tenant, namespace, key, now) for namespace, key in dict.fromkeys(keys)],
        )

    def delete_item(self, namespace: str, key: str) -> int:
        old = self._conn.execute(
            "SELECT row_id FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?",
            (self.tenant, namespace, key),
        ).fetchone()
        if not old:
            return 0
        self._conn.execute("DELETE FROM store_items_fts WHERE rowid = ?", (old[0],))
        self._conn.execute("DELETE FROM store_items WHERE row_id = ?", (old[0],))
        return 1

    def expired_items(self, now: int, limit: int) -> list[ItemRow]:
        rows = self._conn.execute(
            f"SELECT {ITEM_COLUMNS} FROM store_items INDEXED BY store_items_expiry WHERE tenant = ? "
            "AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?",
            (self.tenant, now, limit),
        ).fetchall()
        return [ItemRow(*row) for row in rows]

    def set_key_expiry(self, subject: str, attribute: str, expires_at: int | None) -> None:
        self._conn.execute(
            "UPDATE operations SET expires_at = ? WHERE tenant = ? AND subject = ? AND attribute = ?",
            (expires_at, self.tenant, subject, attribute),
        )

    def insert_action(self, row: ActionRow) -> None:
        self._conn.execute(
            f"INSERT INTO actions ({ACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, row.action_key, row.request, row.status, row.result, row.error, row.attempts,
             row.started_at, row.finished_at),
        )

    def update_action(self, row: ActionRow) -> None:
        self._conn.execute(
            "UPDATE actions SET status = ?, result = ?, error = ?, attempts = ?, finished_at = ? "
            "WHERE tenant = ? AND action_key = ?",
            (row.status, row.result, row.error, row.attempts, row.finished_at, self.tenant, row.action_key),
        )
