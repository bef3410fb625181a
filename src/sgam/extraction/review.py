"""Confirming and rejecting held candidates: the user's word settles what policy held back."""

from __future__ import annotations

from typing import Any

from .._errors import ConflictError, NotFoundError, ValidationError
from .._memory import Memory
from .._model import WriteResult
from .._values import load_value
from ..store import HeldRow
from .policy import apply_candidate, resolve
from .records import HeldCandidate


def _open(memory: Memory, tenant: str, held_id: object) -> HeldRow:
    if isinstance(held_id, bool) or not isinstance(held_id, int):
        raise ValidationError("id", held_id, "must be the integer id of a held candidate")
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
    """Write the candidate through the normal write service; the ledger's rules decide."""
    row = _open(memory, tenant, held_id)
    result = apply_candidate(
        memory,
        tenant,
        row.episode_id,
        row.subject,
        row.attribute,
        row.change,
        load_value(row.value),
        row.valid_from,
        row.confidence,
    )
    resolve(memory, tenant, [held_id], "confirmed")
    return result


def reject(memory: Memory, tenant: str, held_id: int) -> HeldCandidate:
    _open(memory, tenant, held_id)
    resolve(memory, tenant, [held_id], "rejected")
    with memory.backend.read(tenant) as reader:
        row: Any = reader.held(held_id)
    return HeldCandidate.from_row(row)
