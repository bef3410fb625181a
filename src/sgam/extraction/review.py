"""Confirming and rejecting held candidates: the user's word settles what policy held back."""

from __future__ import annotations

from typing import Any

from .._errors import ConflictError, NotFoundError, ValidationError
from .._memory import Memory
from .._model import WriteResult
from .._values import load_value
from .._write import Applied
from ..store import HeldRow
from .policy import candidate_op
from .records import HeldCandidate


def _open(memory: Memory, tenant: str, held_id: object, txn: Any = None) -> HeldRow:
    if isinstance(held_id, bool) or not isinstance(held_id, int) or not 1 <= held_id < 2**63:
        raise ValidationError("id", held_id, "must be the integer id of a held candidate")
    row: HeldRow | None
    if txn is not None:
        row = txn.held(held_id)
    else:
        with memory.backend.read(tenant) as reader:
            row = reader.held(held_id)
    if row is None:
        raise NotFoundError(
            f"id: no held candidate {held_id} in tenant {tenant!r}", field="id", value=held_id
        )
    if row.status != "open":
        raise ConflictError(
            f"id: held candidate {held_id} is already {row.status}", field="id", value=held_id
        )
    return row


def confirm(memory: Memory, tenant: str, held_id: int) -> WriteResult:
    """Write the candidate through the normal write service; the ledger's rules decide.

    The status check, the write and the resolution are one transaction: a candidate
    rejected meanwhile is never written, and a failure leaves it open and unwritten."""
    row = _open(memory, tenant, held_id)
    pending = candidate_op(row.subject, row.attribute, row.change, load_value(row.value), row.valid_from,
                           row.episode_id, row.confidence)

    def work(txn: Any) -> Applied:
        _open(memory, tenant, held_id, txn)
        applied = memory._writes.apply_one(txn, pending)
        txn.resolve_held([held_id], "confirmed", memory._writes.now())
        return applied

    return memory._result(tenant, memory.backend.run_write(tenant, work))


def reject(memory: Memory, tenant: str, held_id: int) -> HeldCandidate:
    _open(memory, tenant, held_id)

    def work(txn: Any) -> None:
        _open(memory, tenant, held_id, txn)  # not one confirmed meanwhile
        txn.resolve_held([held_id], "rejected", memory._writes.now())

    memory.backend.run_write(tenant, work)
    with memory.backend.read(tenant) as reader:
        row: Any = reader.held(held_id)
    return HeldCandidate.from_row(row)
