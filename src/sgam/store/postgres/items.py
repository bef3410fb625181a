"""PostgreSQL tables of the LangGraph store and the action ledger.

``store_items`` holds each item's current state (the ledger holds its history), with a
generated ``tsvector`` of its search text and its vectors. ``namespace`` is ``COLLATE
"C"``, so a namespace prefix is one index range. ``PostgresWrite`` and
``PostgresReader`` mix these in; row-level security scopes every statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from .._protocol import ActionRow, ItemRow
from .adapters import Micros, micros

Cursor = psycopg.Cursor[tuple[Any, ...]]

ITEM_COLUMNS = (
    "tenant, namespace, key, value, created_at, updated_at, expires_at, ttl_minutes, index_text, vectors, dims"
)
ACTION_COLUMNS = "tenant, action_key, request, status, result, error, attempts, started_at, finished_at"
_LIVE = "value IS NOT NULL AND (expires_at IS NULL OR expires_at > %s)"


def _under(prefix: str | None) -> tuple[str, tuple[Any, ...]]:
    """The namespace and those below it. Labels hold no dot, so every one of them sorts
    in ``[prefix, prefix || '/')`` bytewise ('/' follows '.'): one index range, then an
    exact test for the few names there that only start like it."""
    if prefix is None:
        return "", ()
    return (" AND namespace >= %s AND namespace < %s AND (namespace = %s OR namespace >= %s)",
            (prefix, prefix + "/", prefix, prefix + "."))


def _item(row: tuple[Any, ...]) -> ItemRow:
    values = list(row)
    if values[9] is not None:
        values[9] = bytes(values[9])
    return ItemRow(*values)


class ItemReads:
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    _cur: Cursor
    tenant: str

    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return []
        rows = self._cur.execute(
            f"SELECT {ITEM_COLUMNS} FROM store_items JOIN unnest(%s::text[], %s::text[]) AS k(n, k) "
            "ON namespace = k.n AND key = k.k WHERE tenant = %s",
            ([n for n, _ in unique], [k for _, k in unique], self.tenant),
        ).fetchall()
        return [_item(row) for row in rows]

    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        where, params = _under(prefix)
        rows = self._cur.execute(
            f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = %s AND {_LIVE}{where} "
            "ORDER BY updated_at DESC, namespace, key LIMIT %s OFFSET %s",
            (self.tenant, Micros(now), *params, limit, offset),
        ).fetchall()
        return [_item(row) for row in rows]

    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        if not terms:
            return []
        where, params = _under(prefix)
        query = " || ".join("plainto_tsquery('english', %s)" for _ in terms)
        rows = self._cur.execute(
            f"SELECT namespace, key FROM store_items, (SELECT {query}) AS q(q) "
            f"WHERE tenant = %s AND search @@ q.q AND {_LIVE}{where} "
            "ORDER BY ts_rank(search, q.q) DESC, namespace, key LIMIT %s",
            (*terms, self.tenant, Micros(now), *params, limit),
        ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def item_namespaces(self, prefix: str | None, now: int) -> list[str]:
        where, params = _under(prefix)
        rows = self._cur.execute(
            f"SELECT DISTINCT namespace FROM store_items WHERE tenant = %s AND {_LIVE}{where} ORDER BY namespace",
            (self.tenant, Micros(now), *params),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def action(self, action_key: str) -> ActionRow | None:
        row = self._cur.execute(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = %s AND action_key = %s",
            (self.tenant, action_key),
        ).fetchone()
        return ActionRow(*row) if row else None

    def actions(self, status: str | None, limit: int) -> list[ActionRow]:
        where, params = ("AND status = %s", (status,)) if status is not None else ("", ())
        rows = self._cur.execute(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = %s {where} ORDER BY seq LIMIT %s",
            (self.tenant, *params, limit),
        ).fetchall()
        return [ActionRow(*row) for row in rows]


class ItemWrites(ItemReads):
    """Item and action changes inside a write unit of work."""

    def put_item(self, row: ItemRow) -> None:
        self._cur.execute(
            f"INSERT INTO store_items ({ITEM_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, "
            "created_at = excluded.created_at, updated_at = excluded.updated_at, "
            "expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, "
            "index_text = excluded.index_text, vectors = excluded.vectors, dims = excluded.dims",
            (self.tenant, row.namespace, row.key, row.value, Micros(row.created_at), Micros(row.updated_at),
             micros(row.expires_at), row.ttl_minutes, row.index_text, row.vectors, row.dims),
        )

    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return
        self._cur.execute(
            "UPDATE store_items SET expires_at = %s + make_interval(secs => ttl_minutes * 60) "
            "FROM unnest(%s::text[], %s::text[]) AS k(n, k) "
            f"WHERE tenant = %s AND namespace = k.n AND key = k.k AND ttl_minutes IS NOT NULL AND {_LIVE}",
            (Micros(now), [n for n, _ in unique], [k for _, k in unique], self.tenant, Micros(now)),
        )

    def delete_item(self, namespace: str, key: str) -> int:
        rows = self._cur.execute(
            "DELETE FROM store_items WHERE tenant = %s AND namespace = %s AND key = %s RETURNING 1",
            (self.tenant, namespace, key),
        ).fetchall()
        return len(rows)

    def expired_items(self, now: int, limit: int) -> list[ItemRow]:
        rows = self._cur.execute(
            f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = %s "
            "AND expires_at <= %s ORDER BY expires_at LIMIT %s",
            (self.tenant, Micros(now), limit),
        ).fetchall()
        return [_item(row) for row in rows]

    def set_key_expiry(self, subject: str, attribute: str, expires_at: int | None) -> None:
        self._cur.execute(
            "UPDATE operations SET expires_at = %s WHERE tenant = %s AND subject = %s AND attribute = %s",
            (micros(expires_at), self.tenant, subject, attribute),
        )

    def insert_action(self, row: ActionRow) -> None:
        self._cur.execute(
            f"INSERT INTO actions ({ACTION_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (self.tenant, row.action_key, row.request, row.status, row.result, row.error, row.attempts,
             Micros(row.started_at), micros(row.finished_at)),
        )

    def update_action(self, row: ActionRow) -> None:
        self._cur.execute(
            "UPDATE actions SET status = %s, result = %s, error = %s, attempts = %s, finished_at = %s "
            "WHERE tenant = %s AND action_key = %s",
            (row.status, row.result, row.error, row.attempts, micros(row.finished_at), self.tenant, row.action_key),
        )
