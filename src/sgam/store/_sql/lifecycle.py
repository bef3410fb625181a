"""The lifecycle's statements, written once: retention classes, derivations, deadlines,
consent, tombstones and the audit log of one tenant. Finding the tenants with work due
stays with each backend (PostgreSQL asks an owner function)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..._core.purpose import ConsentRow
from .._records import AuditRow, ClassHoldings, RetentionRow
from .._requests import Consents, RevokingConsents
from .memory import Remembering
from .session import Session, chunks, in_list

NEXT_DEADLINE = """
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
the due probe, solved for the instant: what a memory of the deadline remembers); NULL when nothing ever will.
The tenant is bound once per ``?`` (portable placeholders only: numbered ones bound
from a sequence are deprecated in Python 3.12 and refused from 3.14)."""


def _due_episodes(db: Session) -> str:
    """Episodes past their class deadline, per class: an erase class takes every episode
    (one that lost its text through a source goes at its own deadline too); a keep_facts
    class only those that still have their text. Both are index ranges from the oldest.

    ``CROSS JOIN`` keeps the (few) classes as SQLite's outer loop: without statistics its
    planner otherwise walks every episode of the tenant first (44 ms per call at 100k
    episodes). The join's conditions sit in ``WHERE``, which both dialects accept."""
    ttl = db.span("c.ttl")
    return f"""
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    CROSS JOIN episodes e INDEXED BY episodes_by_retention
    WHERE e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - {ttl}
      AND c.tenant = ? AND c.ttl IS NOT NULL AND c.on_expiry = 'erase'
    UNION ALL
    SELECT e.episode_id, c.on_expiry FROM retention_classes c
    CROSS JOIN episodes e INDEXED BY episodes_live_by_retention
    WHERE e.tenant = c.tenant AND e.retention = c.name AND e.recorded_at <= ? - {ttl} AND e.lost_at IS NULL
      AND c.tenant = ? AND c.ttl IS NOT NULL AND c.on_expiry = 'keep_facts'
"""


def _class_due(db: Session) -> str:
    """Whether a class with a ttl holds something past its deadline: its oldest episode
    (live ones for keep_facts) and its oldest kept document revision, each the first entry
    of an index, against the cutoff. A join of episodes to classes would let a planner
    walk every episode of the tenant instead. Each subquery names the tenant itself
    (bound, not ``= c.tenant``): a distributed planner routes a statement to one shard
    only when every table in it is pinned to the same tenant. Its parameters, in order:
    tenant, instant, tenant, tenant, instant, tenant."""
    cutoff = f"? - {db.span('c.ttl')}"
    return f"""
    SELECT 1 FROM retention_classes c
    WHERE c.tenant = ? AND c.ttl IS NOT NULL AND ({cutoff} >= CASE WHEN c.on_expiry = 'erase'
        THEN (SELECT min(e.recorded_at) FROM episodes e INDEXED BY episodes_by_retention
              WHERE e.tenant = ? AND e.retention = c.name)
        ELSE (SELECT min(e.recorded_at) FROM episodes e INDEXED BY episodes_live_by_retention
              WHERE e.tenant = ? AND e.retention = c.name AND e.lost_at IS NULL) END
      OR {cutoff} >= (SELECT min(d.kept_since) FROM documents d INDEXED BY documents_by_deadline
              WHERE d.tenant = ? AND d.retention = c.name))
"""


def _retention(row: tuple[Any, ...]) -> RetentionRow:
    return RetentionRow(row[0], None if row[1] is None else int(row[1]), row[2], row[3])


_RETENTION = "SELECT name, ttl, on_expiry, declared_at FROM retention_classes WHERE tenant = ?"
CONSENTS = (
    # statements naming the subject ``name`` means now, or any other name meaning it
    "SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = ? AND subject IN ("
    "SELECT coalesce((SELECT subject FROM subject_resolution WHERE tenant = ? AND name = ? "
    "AND recorded_to IS NULL), ?) "
    "UNION ALL SELECT name FROM subject_resolution WHERE tenant = ? AND recorded_to IS NULL AND subject = "
    "coalesce((SELECT subject FROM subject_resolution WHERE tenant = ? AND name = ? AND recorded_to IS NULL), ?))"
)


def consents_params(tenant: str, name: str) -> tuple[str, ...]:
    """``CONSENTS``'s parameters; the third is the name asked about."""
    return (tenant, tenant, name, name, tenant, tenant, name, name)


def consents_statement(tenant: str, subject: str) -> tuple[str, tuple[str, ...]]:
    """The statement of ``LifecycleReads.consents(subject)``."""
    return CONSENTS, consents_params(tenant, subject)


def revoking_statement(session: Session, tenant: str, uses: Sequence[str] | None) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``LifecycleReads.revoking_consents(uses)``: every statement about a
    subject with a revocation (of one of ``uses``, if given)."""
    wanted = "" if uses is None else f" AND {in_list('purpose', len(uses))}"
    return ("SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = ? AND subject IN "
            f"(SELECT subject FROM consents INDEXED BY consents_revoked WHERE tenant = ? "
            f"AND granted = {session.false}{wanted})", (tenant, tenant, *(uses or ())))


def consent_from_row(row: tuple[Any, ...]) -> ConsentRow:
    return ConsentRow(row[0], row[1], bool(row[2]), row[3], row[4])


class LifecycleReads(Remembering):
    """Lifecycle reads the reader and the write unit of work share."""

    def _in_chunks(self, sql: str, column: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
        """``sql`` (ending in a condition on the tenant) once per chunk of ``values``."""
        found: list[tuple[Any, ...]] = []
        for chunk in chunks(values):
            found += self._db.rows(f"{sql} AND {in_list(column, len(chunk))}", (self.tenant, *chunk))
        return found

    def retention_classes(self) -> list[RetentionRow]:
        return [_retention(row) for row in self._db.rows(f"{_RETENTION} ORDER BY name", (self.tenant,))]

    def lifecycle_due(self, now: int) -> bool:
        return self._memory.due(self.tenant, now, self._due_at, self._next_deadline)

    def _due_at(self, now: int) -> bool:
        """The deadline probe, asked when the tenant's next deadline is not remembered."""
        at = self._db.moment(now)
        row = self._db.row(
            "SELECT EXISTS (SELECT 1 FROM operations INDEXED BY operations_by_deadline "
            "WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at <= ?) "
            "OR EXISTS (SELECT 1 FROM store_items INDEXED BY store_items_expiry "
            "WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at <= ?) "
            f"OR EXISTS ({_class_due(self._db)})",
            (self.tenant, at, self.tenant, at, self.tenant, at, self.tenant, self.tenant, at, self.tenant),
        )
        return bool(row and row[0])

    def _next_deadline(self) -> int | None:
        row = self._db.row(NEXT_DEADLINE, (self.tenant,) * NEXT_DEADLINE.count("?"))
        return None if row is None else row[0]

    def consents(self, subject: str | None) -> list[ConsentRow]:
        """Statements about ``subject`` under every name it has now (aliases: a statement
        about any name of a subject applies to it), or the tenant's when None."""
        if subject is not None and not self._states_consent():
            return []
        if subject is not None:
            rows = self._db.answer(Consents(subject), *consents_statement(self.tenant, subject))
            return [consent_from_row(row) for row in rows]
        rows = self._db.rows("SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = ?",
                             (self.tenant,))
        return [consent_from_row(row) for row in rows]

    def consents_among(self, subjects: Sequence[str]) -> list[ConsentRow]:
        """The statements about each of ``subjects`` under every name it has now, each
        filed under the subject asked about (a statement about any name applies)."""
        if not subjects or not self._states_consent():
            return []
        wanted = list(dict.fromkeys(subjects))
        groups = self.subject_groups(wanted)
        names = sorted(set().union(*groups.values())) if groups else []
        rows = [consent_from_row(row) for row in self._in_chunks(
            "SELECT subject, purpose, granted, changed_at, seq FROM consents WHERE tenant = ?", "subject", names)]
        if all(groups[subject] == {subject} for subject in wanted):
            return rows
        return [replace(row, subject=subject) for subject in wanted for row in rows if row.subject in groups[subject]]

    def subject_groups(self, subjects: Sequence[str]) -> dict[str, set[str]]:
        """Each subject name with every name of the subject it means now (itself included)."""
        if not subjects:
            return {}
        if not self._aliased():
            return {subject: {subject} for subject in subjects}
        meaning = {str(row[0]): str(row[1]) for row in self._in_chunks(
            "SELECT name, subject FROM subject_resolution WHERE tenant = ? AND recorded_to IS NULL", "name",
            list(subjects))}
        canonical = {subject: meaning.get(subject, subject) for subject in subjects}
        named: dict[str, set[str]] = {}
        for row in self._in_chunks("SELECT subject, name FROM subject_resolution WHERE tenant = ? "
                                   "AND recorded_to IS NULL", "subject", sorted(set(canonical.values()))):
            named.setdefault(str(row[0]), set()).add(str(row[1]))
        return {subject: {meant, *named.get(meant, set())} for subject, meant in canonical.items()}

    def revoking_consents(self, uses: Sequence[str] | None = None) -> list[ConsentRow]:
        request = RevokingConsents(None if uses is None else tuple(uses))
        rows = self._db.answer(request, *revoking_statement(self._db, self.tenant, request.uses))
        return [ConsentRow(row[0], row[1], bool(row[2]), row[3], row[4]) for row in rows]

    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = self._in_chunks("SELECT episode_id, source_id FROM episode_derivations WHERE tenant = ?",
                               "episode_id", episode_ids)
        return [(row[0], row[1]) for row in rows]

    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        rows = self._in_chunks("SELECT episode_id FROM episode_derivations WHERE tenant = ?",
                               "source_id", episode_ids)
        return sorted({row[0] for row in rows})

    def sourced_subjects(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        rows = self._in_chunks("SELECT DISTINCT source, subject FROM operations WHERE tenant = ?",
                               "source", episode_ids)
        return [(row[0], row[1]) for row in rows]

    def audit(self, limit: int) -> list[AuditRow]:
        """The newest entries, each numbered within the tenant's own log (1 for its first).
        The table's ``seq`` counts every tenant's entries: shown, its gaps would tell a
        tenant how often the others erased something. Entries are never deleted, so the
        number of an entry never changes."""
        rows = self._db.rows(
            "SELECT at, action, call, target, rows, detail, ordinal FROM ("
            " SELECT at, action, call, target, rows, detail, seq,"
            "  row_number() OVER (ORDER BY seq) AS ordinal FROM audit_log WHERE tenant = ?"
            ") AS entries ORDER BY seq DESC LIMIT ?",
            (self.tenant, limit),
        )
        return [AuditRow(*row) for row in rows]

    def class_holdings(self) -> list[ClassHoldings]:
        rows = self._db.rows(
            "SELECT retention, sum(episodes), sum(text_lost), min(oldest), sum(documents) FROM ("
            " SELECT retention, count(*) - count(lost_at) AS episodes, count(lost_at) AS text_lost,"
            "  min(CASE WHEN lost_at IS NULL THEN recorded_at END) AS oldest, 0 AS documents"
            " FROM episodes WHERE tenant = ? GROUP BY retention"
            " UNION ALL"
            " SELECT retention, 0, 0, min(kept_since), count(*) FROM documents"
            " WHERE tenant = ? AND kept_since IS NOT NULL GROUP BY retention"
            ") AS held GROUP BY retention ORDER BY retention",
            (self.tenant, self.tenant),
        )
        return [ClassHoldings(row[0], int(row[1]), int(row[2]), row[3], int(row[4])) for row in rows]

    def next_deadlines(self, now: int, limit: int) -> list[tuple[str, str, int]]:
        at = self._db.moment(now)
        ttl = self._db.span("c.ttl")
        rows = self._db.rows(
            "SELECT kind, class, deadline FROM ("
            " SELECT 'write' AS kind, '' AS class, expires_at AS deadline FROM operations "
            " WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at > ?"
            " UNION ALL"
            f" SELECT 'episode', c.name, e.recorded_at + {ttl} FROM retention_classes c"
            " JOIN episodes e ON e.tenant = c.tenant AND e.retention = c.name"
            " WHERE c.tenant = ? AND c.ttl IS NOT NULL AND (e.lost_at IS NULL OR c.on_expiry = 'erase')"
            f"   AND e.recorded_at + {ttl} > ?"
            " UNION ALL"
            f" SELECT 'document', c.name, d.kept_since + {ttl} FROM retention_classes c"
            " JOIN documents d ON d.tenant = c.tenant AND d.retention = c.name"
            " WHERE c.tenant = ? AND c.ttl IS NOT NULL AND d.kept_since IS NOT NULL"
            f"   AND d.kept_since + {ttl} > ?"
            ") AS d ORDER BY deadline LIMIT ?",
            (self.tenant, at, self.tenant, at, self.tenant, at, limit),
        )
        return [(row[0], row[1], row[2]) for row in rows]


class LifecycleWrites(LifecycleReads):
    """Lifecycle changes inside a write unit of work."""

    def retention_class(self, name: str) -> RetentionRow | None:
        row = self._db.row(f"{_RETENTION} AND name = ?", (self.tenant, name))
        return _retention(row) if row else None

    def put_retention_class(self, row: RetentionRow) -> None:
        self._db.run(
            "INSERT INTO retention_classes (tenant, name, ttl, on_expiry, declared_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, name) DO UPDATE SET ttl = excluded.ttl, on_expiry = excluded.on_expiry, "
            "declared_at = excluded.declared_at",
            (self.tenant, row.name, row.ttl, row.on_expiry, self._db.moment(row.declared_at)),
        )

    def insert_derivations(self, episode_id: str, sources: Sequence[str]) -> None:
        if sources:
            self._db.run_many("INSERT INTO episode_derivations (tenant, episode_id, source_id) VALUES (?, ?, ?)",
                              [(self.tenant, episode_id, source) for source in sources])

    def tombstoned_among(self, digests: Sequence[str]) -> set[str]:
        rows = self._in_chunks("SELECT digest FROM tombstones WHERE tenant = ?", "digest",
                               list(dict.fromkeys(digests)))
        return {str(row[0]) for row in rows}

    def add_tombstones(self, digests: Sequence[str]) -> None:
        if digests:
            self._db.run_many("INSERT INTO tombstones (tenant, digest) VALUES (?, ?) ON CONFLICT DO NOTHING",
                              [(self.tenant, digest) for digest in digests])

    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        rows = self._db.rows(
            "SELECT seq, subject, attribute FROM operations INDEXED BY operations_by_deadline "
            "WHERE tenant = ? AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY seq",
            (self.tenant, self._db.moment(now)),
        )
        return [(int(row[0]), row[1], row[2]) for row in rows]

    def delete_operations(self, seqs: Sequence[int]) -> int:
        return sum(
            self._db.count(f"DELETE FROM operations WHERE tenant = ? AND {in_list('seq', len(chunk))}",
                           (self.tenant, *chunk))
            for chunk in chunks(seqs)
        )

    def due_episodes(self, now: int) -> list[tuple[str, str]]:
        at = self._db.moment(now)
        rows = self._db.rows(_due_episodes(self._db), (at, self.tenant, at, self.tenant))
        return [(row[0], row[1]) for row in rows]

    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """Drop the text (and speaker, session, metadata) of episodes; the rows stay."""
        return sum(
            self._db.count(
                "UPDATE episodes SET text = '', speaker = NULL, session = NULL, metadata = '{}', lost_at = ? "
                f"WHERE tenant = ? AND {in_list('episode_id', len(chunk))}",
                (self._db.moment(at), self.tenant, *chunk),
            )
            for chunk in chunks(episode_ids)
        )

    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None:
        """The consent's number is read first, then inserted as a value: a distributed
        database does not run a subquery inside ``INSERT … VALUES``."""
        row = self._db.row("SELECT coalesce(max(seq), 0) + 1 FROM consents WHERE tenant = ?", (self.tenant,))
        assert row is not None
        self._db.run(
            "INSERT INTO consents (tenant, subject, purpose, granted, changed_at, seq) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, subject, purpose) DO UPDATE SET granted = excluded.granted, "
            "changed_at = excluded.changed_at, seq = excluded.seq",
            (self.tenant, subject, purpose, bool(granted), self._db.moment(at), int(row[0])),
        )

    def delete_consents(self, rows: Sequence[ConsentRow]) -> int:
        return sum(
            self._db.count("DELETE FROM consents WHERE tenant = ? AND subject = ? AND purpose = ? AND seq = ?",
                           (self.tenant, row.subject, row.purpose, row.seq))
            for row in rows
        )

    def record_audit(self, row: AuditRow) -> None:
        self._db.run(
            "INSERT INTO audit_log (tenant, at, action, call, target, rows, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, self._db.moment(row.at), row.action, row.call, row.target, row.rows, row.detail),
        )
