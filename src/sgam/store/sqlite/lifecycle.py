"""SQLite's own part of the lifecycle: its lock is the database's, its cache forgets
episodes that lose their text, and the tenants with work due are one query. The
tenant-scoped statements are portable (``store/_sql/lifecycle.py``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .._sql import lifecycle


class LifecycleReads(lifecycle.LifecycleReads):
    """The portable lifecycle reads, as they are."""


class LifecycleWrites(lifecycle.LifecycleWrites):
    """Lifecycle changes inside a ``BEGIN IMMEDIATE`` unit of work."""

    _cache: dict[tuple[str, str, str], Any]

    def lock_lifecycle(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds the whole database."""

    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """The update trigger takes the old text out of the full-text index and drops the
        episode's vectors."""
        for episode_id in episode_ids:
            self._cache.pop(("episode", self.tenant, episode_id), None)
        return super().lose_text(episode_ids, at)


def due_tenants(conn: sqlite3.Connection, now: int) -> list[str]:
    """Every tenant with something past its deadline (the purge visits each)."""
    rows = conn.execute(
        "SELECT tenant FROM operations WHERE expires_at IS NOT NULL AND expires_at <= ? "
        "UNION SELECT e.tenant FROM retention_classes c JOIN episodes e "
        "ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - c.ttl "
        "WHERE c.ttl IS NOT NULL AND (e.lost_at IS NULL OR c.on_expiry = 'erase') "
        "UNION SELECT d.tenant FROM retention_classes c JOIN documents d "
        "ON d.tenant = c.tenant AND d.retention = c.name AND d.kept_since <= ? - c.ttl WHERE c.ttl IS NOT NULL "
        "UNION SELECT tenant FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ? "
        # checkpoint threads: older history to prune, or a thread its class erases
        "UNION SELECT t.tenant FROM saver_threads t JOIN retention_classes c "
        "ON c.tenant = t.tenant AND c.name = t.retention JOIN saver_checkpoints k "
        "ON k.tenant = t.tenant AND k.thread_id = t.thread_id WHERE c.ttl IS NOT NULL "
        "GROUP BY t.tenant, t.thread_id, c.ttl, c.on_expiry "
        "HAVING min(k.created_at) <= ? - c.ttl AND (count(*) > 1 OR c.on_expiry = 'erase') ORDER BY 1",
        (now, now, now, now, now),
    ).fetchall()
    return [row[0] for row in rows]
