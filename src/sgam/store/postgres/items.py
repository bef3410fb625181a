"""PostgreSQL's own part of the LangGraph store's items: bulk lookups through ``unnest``,
ranking by the generated ``tsvector`` of their search text, and refreshing TTLs with
intervals. ``namespace`` is ``COLLATE "C"``, so a namespace prefix is one index range.
The rest is portable (``store/_sql/items.py``); row-level security scopes every statement.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._records import ItemRow
from .._sql import items
from .._sql.items import ITEM_COLUMNS, LIVE, item_from_row, under


def _columns(keys: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Distinct (namespace, key) pairs as two arrays for ``unnest``."""
    unique = list(dict.fromkeys(keys))
    return [n for n, _ in unique], [k for _, k in unique]


class ItemReads(items.ItemReads):
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        namespaces, names = _columns(keys)
        if not names:
            return []
        sql = (f"SELECT {ITEM_COLUMNS} FROM store_items JOIN unnest(?::text[], ?::text[]) AS k(n, k) "
               "ON namespace = k.n AND key = k.k WHERE tenant = ?")
        return [item_from_row(row) for row in self._db.rows(sql, (namespaces, names, self.tenant))]

    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        where, params = under(prefix)
        sql = (f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = ? AND {LIVE}{where} "
               "ORDER BY updated_at DESC, namespace, key LIMIT ? OFFSET ?")
        page = self._db.rows(sql, (self.tenant, self._db.moment(now), *params, limit, offset))
        return [item_from_row(row) for row in page]

    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        if not terms:
            return []
        where, params = under(prefix)
        query = " || ".join("plainto_tsquery('english', ?)" for _ in terms)
        sql = (f"SELECT namespace, key FROM store_items, (SELECT {query}) AS q(q) "
               f"WHERE tenant = ? AND search @@ q.q AND {LIVE}{where} "
               "ORDER BY ts_rank(search, q.q) DESC, namespace, key LIMIT ?")
        ranked = self._db.rows(sql, (*terms, self.tenant, self._db.moment(now), *params, limit))
        return [(str(namespace), str(key)) for namespace, key in ranked]


class ItemWrites(ItemReads, items.ItemWrites):
    """Item changes inside a write unit of work; the search column is generated."""

    def put_item(self, row: ItemRow) -> None:
        moment = self._db.moment
        self._db.run(
            f"INSERT INTO store_items ({ITEM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, "
            "created_at = excluded.created_at, updated_at = excluded.updated_at, "
            "expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, "
            "index_text = excluded.index_text, vectors = excluded.vectors, dims = excluded.dims",
            (self.tenant, row.namespace, row.key, row.value, moment(row.created_at), moment(row.updated_at),
             moment(row.expires_at), row.ttl_minutes, row.index_text, row.vectors, row.dims),
        )

    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        namespaces, names = _columns(keys)
        if names:
            # From epoch microseconds with to_timestamp (immutable), not timestamptz +
            # interval (stable): Citus runs no stable function on a column in an UPDATE.
            self._db.run(
                "UPDATE store_items SET expires_at = to_timestamp((?::bigint + ttl_minutes * 60000000) / 1e6::float8) "
                "FROM unnest(?::text[], ?::text[]) AS k(n, k) "
                f"WHERE tenant = ? AND namespace = k.n AND key = k.k AND ttl_minutes IS NOT NULL AND {LIVE}",
                (now, namespaces, names, self.tenant, self._db.moment(now)),
            )

    def delete_item(self, namespace: str, key: str) -> int:
        return self._db.count("DELETE FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?",
                              (self.tenant, namespace, key))
