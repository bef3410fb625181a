"""What one SQLite connection remembers about its tenants between transactions, and how
it learns that a memory is stale.

Every read and write asks whether anything of the tenant is past its deadline, whether
the subject has consent statements, and what its name (aliases) or its attribute's
(renames) means. Asked of the database, that is two
statements on every call; remembered, it is none. A memory goes stale two ways:

- another connection commits: ``PRAGMA data_version`` changes, and the backend forgets
  everything (checked at the start of every read and write transaction);
- this connection changes a watched table: TEMP triggers (they live in this connection
  only, not in the file's schema) call back into Python inside the same statement.

The deadline remembered is the tenant's *next* deadline, so it stays true as time passes
until the instant it names; a new deadline can only bring it forward (the triggers take
the minimum), and one that is removed leaves an earlier, still safe, bound that is read
again once it is reached.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar, cast

from .._sql.memory import Key

T = TypeVar("T")

Cache = dict[tuple[str, str, str], Any]

CACHE_LIMIT = 4096
_MISSING = object()

_CLASS_DEADLINE = (
    "SELECT sgam_deadline(NEW.tenant, NEW.{column} + c.ttl) FROM retention_classes c "
    "WHERE c.tenant = NEW.tenant AND c.name = NEW.retention AND c.ttl IS NOT NULL"
)
_TRIGGERS = {
    "operations_deadline": "AFTER INSERT ON main.operations WHEN NEW.expires_at IS NOT NULL BEGIN "
                           "SELECT sgam_deadline(NEW.tenant, NEW.expires_at)",
    "operations_deadline_moved": "AFTER UPDATE OF expires_at ON main.operations WHEN NEW.expires_at IS NOT NULL "
                                 "BEGIN SELECT sgam_deadline(NEW.tenant, NEW.expires_at)",
    "items_deadline": "AFTER INSERT ON main.store_items WHEN NEW.expires_at IS NOT NULL BEGIN "
                      "SELECT sgam_deadline(NEW.tenant, NEW.expires_at)",
    "items_deadline_moved": "AFTER UPDATE OF expires_at ON main.store_items WHEN NEW.expires_at IS NOT NULL "
                            "BEGIN SELECT sgam_deadline(NEW.tenant, NEW.expires_at)",
    "episodes_deadline": f"AFTER INSERT ON main.episodes BEGIN {_CLASS_DEADLINE.format(column='recorded_at')}",
    "episodes_deadline_moved": "AFTER UPDATE OF retention, recorded_at, lost_at ON main.episodes BEGIN "
                               + _CLASS_DEADLINE.format(column="recorded_at"),
    "documents_deadline": f"AFTER INSERT ON main.documents BEGIN {_CLASS_DEADLINE.format(column='kept_since')}",
    "documents_deadline_moved": "AFTER UPDATE OF retention, kept_since ON main.documents BEGIN "
                                + _CLASS_DEADLINE.format(column="kept_since"),
    "classes_inserted": "AFTER INSERT ON main.retention_classes BEGIN SELECT sgam_forget('deadline', NEW.tenant)",
    "classes_updated": "AFTER UPDATE ON main.retention_classes BEGIN SELECT sgam_forget('deadline', NEW.tenant)",
    "consents_inserted": "AFTER INSERT ON main.consents BEGIN SELECT sgam_forget('consents', NEW.tenant)",
    "names_resolved": "AFTER INSERT ON main.subject_resolution BEGIN SELECT sgam_forget('aliases', NEW.tenant)",
    "attributes_renamed": "AFTER INSERT ON main.attribute_resolution BEGIN "
                          "SELECT sgam_forget('renames', NEW.tenant)",
    "backfill_started": "AFTER INSERT ON main.backfills BEGIN SELECT sgam_forget('backfills', NEW.tenant)",
    "backfill_advanced": "AFTER UPDATE ON main.backfills BEGIN SELECT sgam_forget('backfills', NEW.tenant)",
    "backfill_dropped": "AFTER DELETE ON main.backfills BEGIN SELECT sgam_forget('backfills', OLD.tenant)",
}


def watch(conn: sqlite3.Connection, cache: Cache) -> None:
    """Keep ``cache`` true under this connection's own changes (see the module)."""

    def deadline(tenant: str, instant: int | None) -> None:
        key = ("deadline", tenant, "")
        known = cache.get(key, _MISSING)
        if instant is None or known is _MISSING:
            return
        if known is None or instant < known:
            cache[key] = instant

    def forget(what: str, tenant: str) -> None:
        cache.pop((what, tenant, ""), None)

    conn.create_function("sgam_deadline", 2, deadline)
    conn.create_function("sgam_forget", 2, forget)
    tables = {str(row[0]) for row in conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
    for name, body in _TRIGGERS.items():
        if body.partition(" ON main.")[2].split(" ")[0] in tables:  # a table a later version adds: not yet
            conn.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS sgam_watch_{name} {body}; END")


class ConnectionMemory:
    """The connection's cache as a reader's or a unit of work's ``TenantMemory``
    (``_sql/memory.py``): the portable statements ask it first."""

    __slots__ = ("_cache",)

    def __init__(self, cache: Cache) -> None:
        self._cache = cache

    def remember(self, key: Key, value: Any) -> None:
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = value

    def forget(self, key: Key) -> None:
        self._cache.pop(key, None)

    def holds(self, key: Key) -> bool:
        return key in self._cache

    def recall(self, key: Key, load: Callable[[], T]) -> T:
        found = self._cache.get(key, _MISSING)
        if found is _MISSING:
            found = load()
            self.remember(key, found)
        return cast(T, found)

    def may_have(self, key: Key, probe: Callable[[], bool]) -> bool:
        """Remembered whether the tenant has any row of the kind: most tenants state no
        consent, alias no name and rename no attribute, and then nothing is asked."""
        return bool(self.recall(key, probe))

    def due(self, tenant: str, now: int, probe: Callable[[int], bool],
            next_deadline: Callable[[], int | None]) -> bool:
        """The tenant's next deadline, remembered: true as time passes until the instant
        it names (the triggers only ever bring it forward)."""
        key = ("deadline", tenant, "")
        instant = self._cache.get(key, _MISSING)
        if instant is _MISSING or (instant is not None and instant <= now):
            instant = next_deadline()
            self.remember(key, instant)
        return instant is not None and bool(instant <= now)
