"""SQLite tables of the lifecycle: retention classes, derivations, deadlines, consent,
tombstones and the audit log. ``SQLiteWrite`` and ``SQLiteReader`` mix these in; every
statement is scoped by tenant."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..._purpose import ConsentRow
from .._protocol import AuditRow, ClassHoldings, RetentionRow

# Episodes past their class deadline, per class: an erase class takes every episode (one
# that lost its text through a source goes at its own deadline too); a keep_facts class
# only those that still have their text. Both are index ranges that start at the oldest.
# CROSS JOIN keeps the (few) classes as the outer loop: without statistics the planner
# otherwise walks every episode of the tenant first, tens of ms per call at 100k.
_DUE_EPISODES = """
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    CROSS JOIN episodes e INDEXED BY episodes_by_retention
      ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - c.ttl
    WHERE c.tenant = ? AND c.ttl IS NOT NULL AND c.on_expiry = 'erase'
    UNION ALL
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    CROSS JOIN episodes e INDEXED BY episodes_live_by_retention
      ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - c.ttl AND e.lost_at IS NULL
    WHERE c.tenant = ? AND c.ttl IS NOT NULL AND c.on_expiry = 'keep_facts'
"""


class LifecycleReads:
    """Tenant-scoped lifecycle reads shared by the reader and the write unit of work."""

    _conn: sqlite3.Connection
    tenant: str

    def retention_classes(self) -> list[RetentionRow]:
        rows = self._conn.execute(
            "SELECT name, ttl, on_expiry, declared_at FROM retention_classes WHERE tenant = ? ORDER BY name",
            (self.tenant,),
        ).fetchall()
        return [RetentionRow(*row) for row in rows]

    def lifecycle_due(self, now: int) -> bool:
        row = self._conn.execute(
            "SELECT EXISTS (SELECT 1 FROM operations INDEXED BY operations_by_deadline "
            "WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at <= ?) "
            f"OR EXISTS (SELECT 1 FROM ({_DUE_EPISODES}))",
            (self.tenant, now, now, self.tenant, now, self.tenant),
        ).fetchone()
        return bool(row[0])

    def consents(self, subject: str | None) -> list[ConsentRow]:
        where, params = ("AND subject = ?", (subject,)) if subject is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = ? {where}",
            (self.tenant, *params),
        ).fetchall()
        return [ConsentRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for start in range(0, len(episode_ids), 500):
            chunk = list(episode_ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            found += self._conn.execute(
                f"SELECT episode_id, source_id FROM episode_derivations WHERE tenant = ? AND episode_id IN ({marks})",
                (self.tenant, *chunk),
            ).fetchall()
        return [(row[0], row[1]) for row in found]

    def sourced_subjects(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for start in range(0, len(episode_ids), 500):
            chunk = list(episode_ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            found += [(row[0], row[1]) for row in self._conn.execute(
                f"SELECT DISTINCT source, subject FROM operations WHERE tenant = ? AND source IN ({marks})",
                (self.tenant, *chunk),
            )]
        return found

    def audit(self, limit: int) -> list[AuditRow]:
        rows = self._conn.execute(
            "SELECT at, action, call, target, rows, detail, seq FROM audit_log WHERE tenant = ? "
            "ORDER BY seq DESC LIMIT ?",
            (self.tenant, limit),
        ).fetchall()
        return [AuditRow(*row) for row in rows]

    def class_holdings(self) -> list[ClassHoldings]:
        rows = self._conn.execute(
            "SELECT retention, count(*), count(lost_at), min(CASE WHEN lost_at IS NULL THEN recorded_at END) "
            "FROM episodes WHERE tenant = ? GROUP BY retention ORDER BY retention",
            (self.tenant,),
        ).fetchall()
        return [ClassHoldings(row[0], row[1] - row[2], row[2], row[3]) for row in rows]

    def next_deadlines(self, now: int, limit: int) -> list[tuple[str, str, int]]:
        rows = self._conn.execute(
            "SELECT kind, class, deadline FROM ("
            " SELECT 'write' AS kind, '' AS class, expires_at AS deadline FROM operations "
            " WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at > ?"
            " UNION ALL"
            " SELECT 'episode', c.name, e.recorded_at + c.ttl FROM retention_classes c"
            " JOIN episodes e ON e.tenant = c.tenant AND e.retention = c.name"
            " WHERE c.tenant = ? AND c.ttl IS NOT NULL AND (e.lost_at IS NULL OR c.on_expiry = 'erase')"
            "   AND e.recorded_at + c.ttl > ?"
            ") ORDER BY deadline LIMIT ?",
            (self.tenant, now, self.tenant, now, limit),
        ).fetchall()
        return [(row[0], row[1], row[2]) for row in rows]


class LifecycleWrites(LifecycleReads):
    """Lifecycle changes inside a ``BEGIN IMMEDIATE`` unit of work."""

    _cache: dict[tuple[str, str, str], Any]

    def retention_class(self, name: str) -> RetentionRow | None:
        row = self._conn.execute(
            "SELECT name, ttl, on_expiry, declared_at FROM retention_classes WHERE tenant = ? AND name = ?",
            (self.tenant, name),
        ).fetchone()
        return RetentionRow(*row) if row else None

    def put_retention_class(self, row: RetentionRow) -> None:
        self._conn.execute(
            "INSERT INTO retention_classes (tenant, name, ttl, on_expiry, declared_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, name) DO UPDATE SET ttl = excluded.ttl, on_expiry = excluded.on_expiry, "
            "declared_at = excluded.declared_at",
            (self.tenant, row.name, row.ttl, row.on_expiry, row.declared_at),
        )

    def insert_derivations(self, episode_id: str, sources: Sequence[str]) -> None:
        self._conn.executemany(
            "INSERT INTO episode_derivations (tenant, episode_id, source_id) VALUES (?, ?, ?)",
            [(self.tenant, episode_id, source) for source in sources],
        )

    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        found: set[str] = set()
        for start in range(0, len(episode_ids), 500):
            chunk = list(episode_ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            found.update(row[0] for row in self._conn.execute(
                f"SELECT episode_id FROM episode_derivations WHERE tenant = ? AND source_id IN ({marks})",
                (self.tenant, *chunk),
            ))
        return sorted(found)

    def tombstoned(self, digest: str) -> bool:
        return self._conn.execute(
            "SELECT 1 FROM tombstones WHERE tenant = ? AND digest = ?", (self.tenant, digest)
        ).fetchone() is not None

    def add_tombstones(self, digests: Sequence[str]) -> None:
        self._conn.executemany(
            "INSERT OR IGNORE INTO tombstones (tenant, digest) VALUES (?, ?)",
            [(self.tenant, digest) for digest in digests],
        )

    def lock_lifecycle(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds the whole database."""

    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        rows = self._conn.execute(
            "SELECT seq, subject, attribute FROM operations INDEXED BY operations_by_deadline "
            "WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY seq",
            (self.tenant, now),
        ).fetchall()
        return [(row[0], row[1], row[2]) for row in rows]

    def delete_operations(self, seqs: Sequence[int]) -> int:
        return sum(
            self._conn.execute("DELETE FROM operations WHERE tenant = ? AND seq = ?", (self.tenant, seq)).rowcount
            for seq in seqs
        )

    def due_episodes(self, now: int) -> list[tuple[str, str]]:
        rows = self._conn.execute(_DUE_EPISODES, (now, self.tenant, now, self.tenant)).fetchall()
        return [(row[0], row[1]) for row in rows]

    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """The update trigger takes the old text out of the full-text index and drops the
        episode's vectors."""
        for episode_id in episode_ids:
            self._conn.execute(
                "UPDATE episodes SET text = '', speaker = NULL, session = NULL, metadata = '{}', lost_at = ? "
                "WHERE tenant = ? AND episode_id = ?",
                (at, self.tenant, episode_id),
            )
            self._cache.pop(("episode", self.tenant, episode_id), None)
        return len(episode_ids)

    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None:
        self._conn.execute(
            "INSERT INTO consents (tenant, subject, purpose, granted, changed_at, seq) VALUES (?, ?, ?, ?, ?, "
            "(SELECT coalesce(max(seq), 0) + 1 FROM consents WHERE tenant = ?)) "
            "ON CONFLICT (tenant, subject, purpose) DO UPDATE SET granted = excluded.granted, "
            "changed_at = excluded.changed_at, seq = excluded.seq",
            (self.tenant, subject, purpose, int(granted), at, self.tenant),
        )

    def delete_consents_of_subject(self, subject: str) -> int:
        return self._conn.execute(
            "DELETE FROM consents WHERE tenant = ? AND subject = ?", (self.tenant, subject)
        ).rowcount

    def record_audit(self, row: AuditRow) -> None:
        self._conn.execute(
            "INSERT INTO audit_log (tenant, at, action, call, target, rows, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, row.at, row.action, row.call, row.target, row.rows, row.detail),
        )


def due_tenants(conn: sqlite3.Connection, now: int) -> list[str]:
    """Every tenant with something past its deadline (the purge visits each)."""
    rows = conn.execute(
        "SELECT tenant FROM operations WHERE expires_at IS NOT NULL AND expires_at <= ? "
        "UNION SELECT e.tenant FROM retention_classes c JOIN episodes e "
        "ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - c.ttl "
        "WHERE c.ttl IS NOT NULL AND (e.lost_at IS NULL OR c.on_expiry = 'erase') ORDER BY 1",
        (now, now),
    ).fetchall()
    return [row[0] for row in rows]
