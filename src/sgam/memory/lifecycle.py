"""``Memory``'s lifecycle methods: retention classes, consent, purge, the audit log and
the retention report. Deadlines themselves are enforced by the ledger service on every
call (``ledger.service``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, TypeVar

from .._core.errors import ValidationError
from .._core.model import AuditEntry, ConsentState, ErasurePreview, PurgeResult, Residue
from .._core.purpose import EVERY_PURPOSE, ConsentRow, allowed, check_purpose
from .._core.retention import (
    DEFAULT_CLASS,
    RetentionClass,
    check_class_name,
    check_on_expiry,
    implicit_default,
    parse_ttl,
    retention_class,
)
from .._core.time import from_micros
from .._core.values import MAX_NAME_LENGTH, check_name, check_subject, check_tenant, check_text
from ..ledger.service import Ledger
from ..lifecycle.expiry import purge
from ..lifecycle.preview import erase_for_preview
from ..store import AuditRow, RetentionRow, WriteTransaction

T = TypeVar("T")
MAX_AUDIT = 10_000


class _RolledBack(Exception):
    """Carries an erasure preview out of the transaction it rolls back."""

    def __init__(self, preview: ErasurePreview) -> None:
        super().__init__("preview")
        self.preview = preview


class Lifecycle:
    """``Memory``'s retention, consent, purge, residue and the audit log: a part the facade
    delegates to, working through the ledger service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    # erasure preview ------------------------------------------------------------------

    def preview_forget(self, tenant: str, *, subject: str | None = None,
                       episode: str | None = None) -> ErasurePreview:
        """What ``forget_subject`` (or ``forget_episode``) would remove now, exactly: the
        erasure runs, names checked and normalised as it checks them, in a transaction
        that is then rolled back. Nothing changes."""
        check_tenant(tenant)
        if (subject is None) == (episode is None):
            raise ValidationError("target", {"subject": subject, "episode": episode},
                                  "give exactly one of subject or episode")
        kind, target = (("subject", check_subject(subject, "subject")) if subject is not None
                        else ("episode", check_name(episode, "episode")))

        def run(txn: WriteTransaction) -> None:
            raise _RolledBack(erase_for_preview(txn, tenant, kind, target, self.ledger.now(), self.ledger.reach))

        try:
            self.ledger.run_write(tenant, run, "preview_forget")
        except _RolledBack as rolled_back:
            return rolled_back.preview
        raise AssertionError("the preview transaction always rolls back")  # pragma: no cover

    # retention ------------------------------------------------------------------------

    def retention(
        self, tenant: str, name: str, ttl: str | Any | None, *, on_expiry: str = "erase"
    ) -> RetentionClass:
        """Declare (or redeclare) a retention class: data of the class is kept ``ttl``
        (ISO 8601 days/hours/minutes/seconds, or None: until erased) after it was
        recorded, then erased or (``keep_facts``) stripped of its text. Redeclaring moves
        every deadline of the class; what has already expired stays expired."""
        check_tenant(tenant)
        row = RetentionRow(check_class_name(name), parse_ttl(ttl), check_on_expiry(on_expiry), 0)

        def declare(txn: WriteTransaction) -> RetentionRow:
            stamped = RetentionRow(row.name, row.ttl, row.on_expiry, self.ledger.now())
            txn.put_retention_class(stamped)
            return stamped

        stored = self.ledger.run_write(tenant, declare, "retention")
        return retention_class(stored.name, stored.ttl, stored.on_expiry, stored.declared_at)

    def retention_classes(self, tenant: str) -> list[RetentionClass]:
        """The tenant's classes, ``default`` included even if never declared."""
        with self.ledger.read(check_tenant(tenant), "retention_classes") as reader:
            rows = reader.retention_classes()
        classes = [retention_class(r.name, r.ttl, r.on_expiry, r.declared_at) for r in rows]
        if all(c.name != DEFAULT_CLASS for c in classes):
            classes.insert(0, implicit_default())
        return classes

    def retention_report(self, tenant: str, *, deadlines: int = 10) -> dict[str, Any]:
        """What each class holds and when the next deadlines fall (nothing of content)."""
        check_tenant(tenant)
        classes = {c.name: c for c in self.retention_classes(tenant)}
        now = self.ledger.now()
        with self.ledger.read(tenant, "retention_report") as reader:
            holdings = {h.name: h for h in reader.class_holdings()}
            upcoming = reader.next_deadlines(now, _count(deadlines, "deadlines"))
        report = []
        for name in sorted(set(classes) | set(holdings)):
            known, held = classes.get(name), holdings.get(name)
            report.append({
                "class": name,
                "ttl": None if known is None else known.ttl_iso,
                "on_expiry": "erase" if known is None else known.on_expiry,
                "episodes": 0 if held is None else held.episodes,
                "text_lost": 0 if held is None else held.text_lost,
                "documents": 0 if held is None else held.documents,
                "next_deadline": _next_deadline(known, held),
            })
        return {
            "tenant": tenant, "now": from_micros(now), "classes": report,
            "next_deadlines": [{"kind": kind, "class": name or None, "at": from_micros(at)}
                               for kind, name, at in upcoming],
        }

    # consent --------------------------------------------------------------------------

    def consent(self, tenant: str, subject: str, granted: bool, *, purpose: str | None = None) -> ConsentState:
        """Record, from now on, whether memory about ``subject`` may be used (for one
        ``purpose``, or every purpose). While revoked, every read path returns nothing
        about it and writes are refused (DeniedError). Revoking erases nothing."""
        check_tenant(tenant)
        subject = check_subject(subject, "subject")
        if not isinstance(granted, bool):
            raise ValidationError("granted", granted, "must be true or false")
        scope = check_purpose(purpose)

        def record(txn: WriteTransaction) -> int:
            txn.lock_lifecycle()
            now = self.ledger.now()
            txn.put_consent(subject, scope or EVERY_PURPOSE, granted, now)
            txn.record_audit(AuditRow(now, "consent_granted" if granted else "consent_revoked", "consent",
                                      self.ledger.digests.of(tenant, "subject", subject), 1,
                                      json.dumps({"purpose": scope is not None})))
            return now

        at = self.ledger.run_write(tenant, record, "consent")
        return ConsentState(tenant, subject, scope, granted, from_micros(at))

    def consented(self, tenant: str, subject: str, *, purpose: str | None = None) -> bool:
        """Whether memory about ``subject`` may be used now (for ``purpose``)."""
        check_tenant(tenant)
        subject, scope = check_subject(subject, "subject"), check_purpose(purpose)
        with self.ledger.backend.read(tenant) as reader:
            return allowed(reader.consents(subject), scope)

    def consents(self, tenant: str, *, subject: str | None = None) -> list[ConsentState]:
        """The latest consent statement per subject and purpose (subjects with none are
        consented)."""
        with self.ledger.read(check_tenant(tenant), "consents") as reader:
            rows = reader.consents(None if subject is None else check_subject(subject, "subject"))
        return [_consent_state(tenant, row) for row in sorted(rows, key=lambda r: r.seq)]

    # purge and audit ------------------------------------------------------------------

    def purge(self, tenant: str | None = None) -> PurgeResult:
        """Erase everything past its deadline, in every tenant (or one), apply checkpoint
        retention to their threads, then remove the physical residue as an erasure does.
        Each tenant is one transaction: a purge cut short leaves whole tenants done or
        untouched, and running it again finishes."""
        scope = None if tenant is None else check_tenant(tenant)
        visited, total, retained = purge(self.ledger.backend, self.ledger.reach, self.ledger.now(), scope)
        return PurgeResult(visited, total.operations, total.episodes, total.texts, total.keys, total.items,
                           total.documents, retained.threads_erased, retained.threads_pruned)

    def residue(self, tenant: str, text: str) -> Residue:
        """Every table, index and stored reply of the tenant (and, on SQLite, the database
        and WAL bytes) in which ``text`` still appears, as written, lowercased (as full-text
        indexes keep terms) or JSON-escaped (as stored replies may carry it): how an
        operator proves that an erasure or a purge left nothing behind. Never another
        tenant's data: places that mix tenants are searched only while the store holds
        no other tenant, else named in ``unscanned``."""
        check_tenant(tenant)
        literal = check_text(text, "text", MAX_NAME_LENGTH * 4)
        if not literal.strip():
            raise ValidationError("text", text, "must be a non-empty string")
        needles = sorted({literal, literal.lower(), json.dumps(literal)[1:-1],
                          json.dumps(literal, ensure_ascii=False)[1:-1]})
        found = self.ledger.backend.residue(tenant, needles)
        return Residue(tenant, literal, bool(found.hits), {hit.place: hit.matches for hit in found.hits},
                       found.unscanned)

    def audit(self, tenant: str, *, limit: int = 100) -> list[AuditEntry]:
        """The tenant's erasures, expiries and consent changes, newest first; counts and
        keyed digests only, never content."""
        with self.ledger.backend.read(check_tenant(tenant)) as reader:
            rows = reader.audit(_count(limit, "limit"))
        return [AuditEntry(r.seq, from_micros(r.at), r.action, r.call, r.target, r.rows, json.loads(r.detail))
                for r in rows]


def _consent_state(tenant: str, row: ConsentRow) -> ConsentState:
    return ConsentState(tenant, row.subject, row.purpose or None, row.granted, from_micros(row.changed_at))


def _next_deadline(known: RetentionClass | None, held: Any) -> datetime | None:
    if known is None or known.ttl is None or held is None or held.oldest_recorded_at is None:
        return None
    return from_micros(held.oldest_recorded_at) + known.ttl


def _count(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_AUDIT:
        raise ValidationError(field, value, f"must be an integer from 1 to {MAX_AUDIT}")
    return value
