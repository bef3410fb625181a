"""Confirming and rejecting held candidates: the user's word settles what policy held back."""

from __future__ import annotations

from .._core.errors import ConflictError, ForbiddenError, NotFoundError
from .._core.model import SubjectName, WriteResult
from .._core.time import from_micros
from .._core.values import check_integer, check_subject, load_value
from ..ledger import aliases
from ..ledger.service import Ledger
from ..ledger.write import Applied
from ..store import ExtractionReads, ExtractionWrites, HeldRow, WriteTransaction
from .policy import ALIAS, candidate_op
from .records import HeldCandidate


def _check_id(held_id: object) -> int:
    return check_integer(held_id, "id", 1, "must be the integer id of a held candidate")


def _open(scope: ExtractionReads | ExtractionWrites, held_id: int) -> HeldRow:
    tenant = scope.tenant
    row = scope.held(held_id)
    if row is None:
        raise NotFoundError(
            f"id: no held candidate {held_id} in tenant {tenant!r}", field="id", value=held_id
        )
    if row.status != "open":
        raise ConflictError(
            f"id: held candidate {held_id} is already {row.status}", field="id", value=held_id
        )
    return row


def confirm(ledger: Ledger, tenant: str, held_id: int, subject: str | None = None, *,
            may_alias: bool = True) -> WriteResult | SubjectName:
    """Write the candidate through the normal write service; the ledger's rules decide.
    ``subject``: the subject a person says the candidate is about (for a name that was
    ambiguous), instead of the name the model wrote. A fact answers the write's result;
    an alias proposal answers the alias step it recorded (as ``Memory.alias`` does).
    ``may_alias=False`` (a caller whose key may write facts but not merge subjects)
    refuses an alias proposal with ``ForbiddenError`` and leaves it open.

    The status check, the write and the resolution are one transaction: a candidate
    rejected meanwhile is never written, and a failure leaves it open and unwritten."""
    held_id = _check_id(held_id)
    chosen = None if subject is None else check_subject(subject, "subject")

    def work(txn: WriteTransaction) -> Applied | SubjectName:
        row = _open(txn, held_id)
        if row.change == ALIAS:
            if not may_alias:
                raise ForbiddenError(f"id: held candidate {held_id} proposes an alias; confirming it merges "
                                     "subjects, which needs an admin key", field="id", value=held_id)
            return record_alias(ledger, txn, held_id, load_value(row.value), row.subject)
        pending = candidate_op(chosen or row.subject, row.attribute, row.change, load_value(row.value),
                               row.valid_from, row.episode_id, row.confidence)
        applied = ledger.writes.apply_one(txn, pending)
        txn.resolve_held([held_id], "confirmed", ledger.now())
        return applied

    done = ledger.run_write(tenant, work)
    if isinstance(done, SubjectName):
        return done
    ledger.index_facts(tenant)
    return ledger.result(tenant, done)


def record_alias(ledger: Ledger, txn: WriteTransaction, held_id: int, name: str, subject: str) -> SubjectName:
    """The one place where a confirmed alias proposal takes effect: ``name`` becomes
    another name of ``subject`` (merging if it has facts of its own), by the review's
    decision. An alias is a step, not an operation: the answer is the step, as a line of
    the subject's page of names."""
    row = aliases.alias(txn, check_subject(name, "value"), subject, ledger.now(), f"review of held {held_id}")
    txn.resolve_held([held_id], "confirmed", ledger.now())
    return SubjectName(txn.tenant, row.name, row.subject, from_micros(row.recorded_at),
                       None if row.ended_at is None else from_micros(row.ended_at), row.decided_by)


def reject(ledger: Ledger, tenant: str, held_id: int) -> HeldCandidate:
    held_id = _check_id(held_id)

    def work(txn: WriteTransaction) -> HeldRow:
        row = _open(txn, held_id)  # not one confirmed meanwhile
        row.status, row.resolved_at = "rejected", ledger.now()
        txn.resolve_held([held_id], row.status, row.resolved_at)
        return row

    return HeldCandidate.from_row(ledger.run_write(tenant, work))
