"""PostgreSQL tables of the lifecycle: retention classes, derivations, deadlines, consent,
tombstones and the audit log. ``PostgresWrite`` and ``PostgresReader`` mix these in;
every statement runs under the tenant's RLS policy except ``due_tenants``, which asks
the owner's ``sgam_due_tenants`` function (migration 8) for tenant names only."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg

from ..._purpose import ConsentRow
from .._protocol import AuditRow, ClassHoldings, EpisodeRow, RetentionRow
from .adapters import Micros

Cursor = psycopg.Cursor[tuple[Any, ...]]

_TTL = "c.ttl * interval '1 microsecond'"
_DUE_EPISODES = f"""
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    JOIN episodes e ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= %s - {_TTL}
    WHERE c.tenant = %s AND c.ttl IS NOT NULL AND c.on_expiry = 'erase'
    UNION ALL
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    JOIN episodes e ON e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= %s - {_TTL}
        AND e.lost_at IS NULL
    WHERE c.tenant = %s AND c.ttl IS NOT NULL AND c.on_expiry = 'keep_facts'
"""


# The probe: per class with a ttl, the oldest episode (live ones for keep_facts) and the
# oldest kept document revision, each the first entry of an index, against the cutoff.
# (Joining episodes to classes instead lets the planner walk every episode of the tenant.)
_CLASS_DUE = f"""
    SELECT 1 FROM retention_classes c
    WHERE c.tenant = %s AND c.ttl IS NOT NULL AND %s - {_TTL} >= LEAST(
        CASE WHEN c.on_expiry = 'erase'
             THEN (SELECT min(e.recorded_at) FROM episodes e WHERE e.tenant = c.tenant AND e.retention = c.name)
             ELSE (SELECT min(e.recorded_at) FROM episodes e
                   WHERE e.tenant = c.tenant AND e.retention = c.name AND e.lost_at IS NULL) END,
        (SELECT min(d.kept_since) FROM documents d WHERE d.tenant = c.tenant AND d.retention = c.name))
"""


def _retention(row: tuple[Any, ...]) -> RetentionRow:
    return RetentionRow(row[0], None if row[1] is None else int(row[1]), row[2], row[3])


class LifecycleReads:
    """Tenant-scoped lifecycle reads shared by the reader and the write unit of work."""

    _cur: Cursor
    tenant: str

    def retention_classes(self) -> list[RetentionRow]:
        rows = self._cur.execute(
            "SELECT name, ttl, on_expiry, declared_at FROM retention_classes WHERE tenant = %s ORDER BY name",
            (self.tenant,),
        ).fetchall()
        return [_retention(row) for row in rows]

    def lifecycle_due(self, now: int) -> bool:
        row = self._cur.execute(
            "SELECT EXISTS (SELECT 1 FROM operations WHERE tenant = %s AND expires_at <= %s) "
            "OR EXISTS (SELECT 1 FROM store_items WHERE tenant = %s AND expires_at <= %s) "
            f"OR EXISTS ({_CLASS_DUE})",
            (self.tenant, Micros(now), self.tenant, Micros(now), self.tenant, Micros(now)),
        ).fetchone()
        return bool(row and row[0])

    def consents(self, subject: str | None) -> list[ConsentRow]:
        where, params = ("AND subject = %s", (subject,)) if subject is not None else ("", ())
        rows = self._cur.execute(
            f"SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = %s {where}",
            (self.tenant, *params),
        ).fetchall()
        return [ConsentRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    def revoking_consents(self, uses: Sequence[str] | None = None) -> list[ConsentRow]:
        wanted = "" if uses is None else " AND purpose = ANY(%s)"
        rows = self._cur.execute(
            "SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = %s AND subject IN "
            f"(SELECT subject FROM consents WHERE tenant = %s AND NOT granted{wanted})",
            (self.tenant, self.tenant, *(() if uses is None else (list(uses),))),
        ).fetchall()
        return [ConsentRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = self._cur.execute(
            "SELECT episode_id, source_id FROM episode_derivations WHERE tenant = %s AND episode_id = ANY(%s)",
            (self.tenant, list(episode_ids)),
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def sourced_subjects(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = self._cur.execute(
            "SELECT DISTINCT source, subject FROM operations WHERE tenant = %s AND source = ANY(%s)",
            (self.tenant, list(episode_ids)),
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def audit(self, limit: int) -> list[AuditRow]:
        rows = self._cur.execute(
            "SELECT at, action, call, target, rows, detail, seq FROM audit_log WHERE tenant = %s "
            "ORDER BY seq DESC LIMIT %s",
            (self.tenant, limit),
        ).fetchall()
        return [AuditRow(*row) for row in rows]

    def class_holdings(self) -> list[ClassHoldings]:
        rows = self._cur.execute(
            "SELECT retention, count(*), count(lost_at), min(recorded_at) FILTER (WHERE lost_at IS NULL) "
            "FROM episodes WHERE tenant = %s GROUP BY retention ORDER BY retention",
            (self.tenant,),
        ).fetchall()
        return [ClassHoldings(row[0], int(row[1]) - int(row[2]), int(row[2]), row[3]) for row in rows]

    def next_deadlines(self, now: int, limit: int) -> list[tuple[str, str, int]]:
        rows = self._cur.execute(
            "SELECT kind, class, deadline FROM ("
            " SELECT 'write' AS kind, '' AS class, expires_at AS deadline FROM operations "
            " WHERE tenant = %s AND expires_at > %s"
            " UNION ALL"
            f" SELECT 'episode', c.name, e.recorded_at + {_TTL} FROM retention_classes c"
            " JOIN episodes e ON e.tenant = c.tenant AND e.retention = c.name"
            " WHERE c.tenant = %s AND c.ttl IS NOT NULL AND (e.lost_at IS NULL OR c.on_expiry = 'erase')"
            f"   AND e.recorded_at + {_TTL} > %s"
            ") d ORDER BY deadline LIMIT %s",
            (self.tenant, Micros(now), self.tenant, Micros(now), limit),
        ).fetchall()
        return [(row[0], row[1], row[2]) for row in rows]


class LifecycleWrites(LifecycleReads):
    """Lifecycle changes inside a READ COMMITTED unit of work; subjects are locked (as
    the ledger's writes lock them) before their operations are deleted."""

    _lock: Callable[[Iterable[str]], None]
    _episodes: dict[str, EpisodeRow | None]
    _last: dict[tuple[str, str], int | None]

    def retention_class(self, name: str) -> RetentionRow | None:
        row = self._cur.execute(
            "SELECT name, ttl, on_expiry, declared_at FROM retention_classes WHERE tenant = %s AND name = %s",
            (self.tenant, name),
        ).fetchone()
        return _retention(row) if row else None

    def put_retention_class(self, row: RetentionRow) -> None:
        self._cur.execute(
            "INSERT INTO retention_classes (tenant, name, ttl, on_expiry, declared_at) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (tenant, name) DO UPDATE SET ttl = excluded.ttl, on_expiry = excluded.on_expiry, "
            "declared_at = excluded.declared_at",
            (self.tenant, row.name, row.ttl, row.on_expiry, Micros(row.declared_at)),
        )

    def insert_derivations(self, episode_id: str, sources: Sequence[str]) -> None:
        if sources:
            self._cur.execute(
                "INSERT INTO episode_derivations (tenant, episode_id, source_id) "
                "SELECT %s, %s, s FROM unnest(%s::text[]) AS s",
                (self.tenant, episode_id, list(sources)),
            )

    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        rows = self._cur.execute(
            "SELECT DISTINCT episode_id FROM episode_derivations WHERE tenant = %s AND source_id = ANY(%s) "
            "ORDER BY episode_id",
            (self.tenant, list(episode_ids)),
        ).fetchall()
        return [row[0] for row in rows]

    def tombstoned(self, digest: str) -> bool:
        return self._cur.execute(
            "SELECT 1 FROM tombstones WHERE tenant = %s AND digest = %s", (self.tenant, digest)
        ).fetchone() is not None

    def add_tombstones(self, digests: Sequence[str]) -> None:
        if digests:
            self._cur.execute(
                "INSERT INTO tombstones (tenant, digest) SELECT %s, d FROM unnest(%s::text[]) AS d "
                "ON CONFLICT DO NOTHING",
                (self.tenant, list(digests)),
            )

    def lock_lifecycle(self) -> None:
        """One expiry pass per tenant at a time: a second waits, then finds the work done.
        (U+0000 cannot start a subject, so this lock is no subject's.)"""
        self._lock(["\x00lifecycle"])

    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        rows = self._cur.execute(
            "SELECT seq, subject, attribute FROM operations WHERE tenant = %s AND expires_at <= %s ORDER BY seq",
            (self.tenant, Micros(now)),
        ).fetchall()
        found = [(int(row[0]), row[1], row[2]) for row in rows]
        self._lock({subject for _, subject, _ in found})
        return found

    def delete_operations(self, seqs: Sequence[int]) -> int:
        self._last.clear()
        return len(self._cur.execute(
            "DELETE FROM operations WHERE tenant = %s AND seq = ANY(%s::bigint[]) RETURNING 1",
            (self.tenant, list(seqs)),
        ).fetchall())

    def due_episodes(self, now: int) -> list[tuple[str, str]]:
        rows = self._cur.execute(
            _DUE_EPISODES, (Micros(now), self.tenant, Micros(now), self.tenant)
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """Vectors hang off the episode by foreign key, so they are deleted here; the
        full-text column is generated from the text and empties with it."""
        ids = list(episode_ids)
        for episode_id in ids:
            self._episodes.pop(episode_id, None)
        self._cur.execute(
            "DELETE FROM episode_vectors WHERE tenant = %s AND episode_id = ANY(%s)", (self.tenant, ids)
        )
        return len(self._cur.execute(
            "UPDATE episodes SET text = '', speaker = NULL, session = NULL, metadata = '{}', lost_at = %s "
            "WHERE tenant = %s AND episode_id = ANY(%s) RETURNING 1",
            (Micros(at), self.tenant, ids),
        ).fetchall())

    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None:
        self._cur.execute(
            "INSERT INTO consents (tenant, subject, purpose, granted, changed_at, seq) VALUES (%s, %s, %s, %s, %s, "
            "(SELECT coalesce(max(seq), 0) + 1 FROM consents WHERE tenant = %s)) "
            "ON CONFLICT (tenant, subject, purpose) DO UPDATE SET granted = excluded.granted, "
            "changed_at = excluded.changed_at, seq = excluded.seq",
            (self.tenant, subject, purpose, granted, Micros(at), self.tenant),
        )

    def delete_consents_of_subject(self, subject: str) -> int:
        return len(self._cur.execute(
            "DELETE FROM consents WHERE tenant = %s AND subject = %s RETURNING 1", (self.tenant, subject)
        ).fetchall())

    def record_audit(self, row: AuditRow) -> None:
        self._cur.execute(
            "INSERT INTO audit_log (tenant, at, action, call, target, rows, detail) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (self.tenant, Micros(row.at), row.action, row.call, row.target, row.rows, row.detail),
        )


def due_tenants(cur: Cursor, now: int) -> list[str]:
    rows = cur.execute("SELECT t FROM sgam_due_tenants(%s) AS t ORDER BY t", (Micros(now),)).fetchall()
    return [row[0] for row in rows]

