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
from collections.abc import Callable, Sequence
from typing import Any

from ..._core.purpose import ConsentRow
from .._sql import lifecycle

Cache = dict[tuple[str, str, str], Any]

CACHE_LIMIT = 4096
_MISSING = object()

_NEXT_DEADLINE = """
SELECT min(instant) FROM (
    SELECT min(expires_at) AS instant FROM operations INDEXED BY operations_by_deadline
    WHERE tenant = ? AND expires_at IS NOT NULL
    UNION ALL
    SELECT min(expires_at) FROM store_items INDEXED BY store_items_expiry
    WHERE tenant = ? AND expires_at IS NOT NULL
    UNION ALL
    SELECT c.ttl + CASE WHEN c.on_expiry = 'erase'
        THEN (SELECT min(e.recorded_at) FROM episodes e INDEXED BY episodes_by_retention
              WHERE e.tenant = c.tenant AND e.retention = c.name)
        ELSE (SELECT min(e.recorded_at) FROM episodes e INDEXED BY episodes_live_by_retention
              WHERE e.tenant = c.tenant AND e.retention = c.name AND e.lost_at IS NULL) END
    FROM retention_classes c WHERE c.tenant = ? AND c.ttl IS NOT NULL
    UNION ALL
    SELECT c.ttl + (SELECT min(d.kept_since) FROM documents d INDEXED BY documents_by_deadline
                    WHERE d.tenant = c.tenant AND d.retention = c.name)
    FROM retention_classes c WHERE c.tenant = ? AND c.ttl IS NOT NULL
)
"""
"""The earliest instant at which something of the tenant falls due (the conditions of
``_sql.lifecycle``'s due probe, solved for the instant); NULL when nothing ever will.
The tenant is bound once per ``?`` (portable placeholders only: numbered ones bound
from a sequence are deprecated in Python 3.12 and refused from 3.14)."""

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
    for name, body in _TRIGGERS.items():
        conn.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS sgam_watch_{name} {body}; END")


class TenantMemory(lifecycle.LifecycleReads):
    """The deadline and consent answers of a reader or a unit of work, from the
    connection's cache when it holds them (first among the bases of both)."""

    _cache: Cache

    def _remember(self, key: tuple[str, str, str], value: Any) -> None:
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = value

    def _cached(self, key: tuple[str, str, str], load: Callable[[], Any]) -> Any:
        found = self._cache.get(key, _MISSING)
        if found is _MISSING:
            found = load()
            self._remember(key, found)
        return found

    def lifecycle_due(self, now: int) -> bool:
        key = ("deadline", self.tenant, "")
        instant = self._cache.get(key, _MISSING)
        if instant is _MISSING or (instant is not None and instant <= now):
            row = self._db.row(_NEXT_DEADLINE, (self.tenant,) * _NEXT_DEADLINE.count("?"))
            instant = None if row is None else row[0]
            self._remember(key, instant)
        return instant is not None and bool(instant <= now)

    def consents(self, subject: str | None) -> list[ConsentRow]:
        """Most tenants state no consent at all: that is remembered, so a read or a write
        asks about its subject only in a tenant that has statements."""
        if subject is not None and not self._states_consent():
            return []
        return super().consents(subject)

    def consents_among(self, subjects: Sequence[str]) -> list[ConsentRow]:
        """As ``consents``: nothing to ask in a tenant that states no consent."""
        if not subjects or not self._states_consent():
            return []
        return super().consents_among(subjects)

    def _states_consent(self) -> bool:
        def stated() -> bool:
            return self._db.row("SELECT 1 FROM consents WHERE tenant = ? LIMIT 1", (self.tenant,)) is not None

        return bool(self._cached(("consents", self.tenant, ""), stated))

    def _aliased(self) -> bool:
        """Whether any name of the tenant has ever been an alias (most tenants: never)."""
        return self._ever_in("subject_resolution", "aliases")

    def _renamed(self) -> bool:
        """Whether any attribute of the tenant has ever been renamed (most tenants: never)."""
        return self._ever_in("attribute_resolution", "renames")

    def _ever_in(self, table: str, what: str) -> bool:
        def found() -> bool:
            return self._db.row(f"SELECT 1 FROM {table} WHERE tenant = ? LIMIT 1", (self.tenant,)) is not None  # noqa: S608

        return bool(self._cached((what, self.tenant, ""), found))

    def resolve_attribute(self, name: str, known_at: int | None = None) -> str:
        return super().resolve_attribute(name, known_at) if self._renamed() else name  # type: ignore[misc]

    def subject_groups(self, subjects: Sequence[str]) -> dict[str, set[str]]:
        return super().subject_groups(subjects) if self._aliased() else {s: {s} for s in subjects}

    def resolve_subjects(self, names: Sequence[str]) -> dict[str, str]:
        return super().resolve_subjects(names) if self._aliased() else {}  # type: ignore[misc]

    def resolve_subject(self, name: str, known_at: int | None = None) -> str:
        return super().resolve_subject(name, known_at) if self._aliased() else name  # type: ignore[misc]

    def names_meaning(self, subject: str, known_at: int | None = None) -> list[str]:
        return super().names_meaning(subject, known_at) if self._aliased() else []  # type: ignore[misc]
