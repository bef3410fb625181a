"""PostgreSQL's own part of the lifecycle: subjects are locked (as the ledger's writes lock
them) before their operations are deleted, expiry passes of a tenant are serialised by an
advisory lock, and ``due_tenants`` asks the owner's ``sgam_due_tenants`` function
(the baseline) for tenant names only. The tenant-scoped statements are portable
(``store/_sql/lifecycle.py``) and run under the tenant's RLS policy; the deadline probe
asks ``sgam_lifecycle_due``, the same question in one server function."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .._records import EpisodeRow
from .._sql import lifecycle
from .._sql.keystate import KeyStates
from .adapters import Micros
from .session import Cursor

_DUE = "SELECT sgam_lifecycle_due(?, ?)"
"""The deadline probe: the portable statement's question, asked of its server function
(the baseline)."""


class LifecycleReads(lifecycle.LifecycleReads):
    """The portable lifecycle reads; the deadline probe through its server function."""

    def _due_at(self, now: int) -> bool:
        row = self._db.row(_DUE, (self.tenant, self._db.moment(now)))
        return bool(row and row[0])


class LifecycleWrites(LifecycleReads, lifecycle.LifecycleWrites):
    """Lifecycle changes inside a READ COMMITTED unit of work (the probe: as a read's)."""

    _lock: Callable[[Iterable[str]], None]
    _episodes: dict[str, EpisodeRow | None]
    _keys: KeyStates

    def lock_lifecycle(self) -> None:
        """One expiry pass per tenant at a time: a second waits, then finds the work done.
        (U+0000 cannot start a subject, so this lock is no subject's.)"""
        self._lock(["\x00lifecycle"])

    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        found = super().due_operations(now)
        self._lock({subject for _, subject, _ in found})
        return found

    def delete_operations(self, seqs: Sequence[int]) -> int:
        self._keys.operations_erased()
        return super().delete_operations(seqs)

    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """Vectors hang off the episode by foreign key, so they are deleted here; the
        full-text column is generated from the text and empties with it."""
        ids = list(episode_ids)
        for episode_id in ids:
            self._episodes.pop(episode_id, None)
        self._db.run("DELETE FROM episode_vectors WHERE tenant = ? AND episode_id = ANY(?)", (self.tenant, ids))
        return super().lose_text(ids, at)


def due_tenants(cur: Cursor, now: int) -> list[str]:
    rows = cur.execute("SELECT t FROM sgam_due_tenants(%s) AS t ORDER BY t", (Micros(now),)).fetchall()
    return [row[0] for row in rows]

