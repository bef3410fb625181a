"""SQLite's own part of the LangGraph store's items: looking them up, paging and ranking
them, and keeping ``store_items_fts`` (rowid = ``row_id``) in step with ``store_items``
in ``put_item`` and ``delete_item``. The rest is portable (``store/_sql/items.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from .._records import ItemRow
from .._sql import items
from .._sql.items import ITEM_COLUMNS, LIVE, item_from_row, under
from .fts import fts_query

_ROW_ID = "SELECT row_id FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?"


class ItemReads(items.ItemReads):
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        sql = f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = ? AND namespace = ? AND key = ?"
        found = (self._db.row(sql, (self.tenant, namespace, key)) for namespace, key in dict.fromkeys(keys))
        return [item_from_row(row) for row in found if row]

    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        where, params = under(prefix)
        # under a prefix, range over (tenant, namespace, key) and sort what is there ("+"
        # keeps the planner from walking the whole tenant in updated_at order instead)
        order = "+updated_at DESC" if prefix is not None else "updated_at DESC"
        sql = (f"SELECT {ITEM_COLUMNS} FROM store_items WHERE tenant = ? AND {LIVE}{where} "
               f"ORDER BY {order}, namespace, key LIMIT ? OFFSET ?")
        found = self._db.rows(sql, (self.tenant, now, *params, -1 if limit is None else limit, offset))
        return [item_from_row(row) for row in found]

    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        if not terms:
            return []
        where, params = under(prefix)
        # CROSS JOIN keeps the full-text match as the outer loop: the planner would
        # otherwise range over the prefix and run the MATCH once per row
        sql = ("SELECT namespace, key FROM store_items_fts CROSS JOIN store_items ON row_id = store_items_fts.rowid "
               f"WHERE store_items_fts MATCH ? AND tenant = ? AND {LIVE}{where} "
               "ORDER BY bm25(store_items_fts), namespace, key LIMIT ?")
        found = self._db.rows(sql, (fts_query(terms), self.tenant, now, *params, limit))
        return [(str(namespace), str(key)) for namespace, key in found]


class ItemWrites(ItemReads, items.ItemWrites):
    """Item changes inside a write unit of work, with their full-text entries."""

    def put_item(self, row: ItemRow) -> None:
        old = self._db.row(_ROW_ID, (self.tenant, row.namespace, row.key))
        if old:
            self._forget_text(old[0])
        stored = self._db.row(
            f"INSERT INTO store_items ({ITEM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, namespace, key) DO UPDATE SET value = excluded.value, "
            "created_at = excluded.created_at, updated_at = excluded.updated_at, "
            "expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes, "
            "index_text = excluded.index_text, vectors = excluded.vectors, dims = excluded.dims "
            "RETURNING row_id",
            (self.tenant, row.namespace, row.key, row.value, row.created_at, row.updated_at, row.expires_at,
             row.ttl_minutes, row.index_text, row.vectors, row.dims),
        )
        if row.index_text and stored:
            self._db.run("INSERT INTO store_items_fts (rowid, index_text) VALUES (?, ?)", (stored[0], row.index_text))

    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        self._db.run_many(
            "UPDATE store_items SET expires_at = ? + CAST(ttl_minutes * 60000000 AS INTEGER) "
            f"WHERE tenant = ? AND namespace = ? AND key = ? AND ttl_minutes IS NOT NULL AND {LIVE}",
            [(now, self.tenant, namespace, key, now) for namespace, key in dict.fromkeys(keys)],
        )

    def delete_item(self, namespace: str, key: str) -> int:
        old = self._db.row(_ROW_ID, (self.tenant, namespace, key))
        if not old:
            return 0
        self._forget_text(old[0])
        self._db.run("DELETE FROM store_items WHERE row_id = ?", (old[0],))
        return 1

    def _forget_text(self, row_id: int) -> None:
        """Remove the item's full-text entry and mark the index for the next merge, which
        removes the terms its older segments still hold."""
        self._db.run("DELETE FROM store_items_fts WHERE rowid = ?", (row_id,))
        self._db.run("INSERT OR IGNORE INTO full_text_dirty VALUES ('store_items_fts')")
