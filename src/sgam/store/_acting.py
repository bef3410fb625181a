"""The idempotent request a unit of work acts for: every write committed while a request
holds an ``Idempotency-Key`` marks the key's reservation in the write's own transaction.

So the mark and the effect commit together or not at all: a reservation that outlives a
crashed server says whether its request took effect, and a retry never has to guess. A
write for an attempt that no longer holds its key (a retry took over the reservation)
rolls back instead of acting a second time. Set by the HTTP surface; a context variable,
so it follows the request onto the worker thread that runs its calls.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from .._core.errors import ConflictError
from ._protocol import WriteTransaction


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of an idempotent request: its tenant, key and the token naming it."""

    tenant: str
    key: str
    token: str
    started_at: int


ACTING_FOR: ContextVar[Attempt | None] = ContextVar("sgam_acting_for", default=None)


def mark_acted(tenant: str, txn: WriteTransaction) -> None:
    """Before a write commits: record that the attempt acted, or refuse the write when the
    attempt has lost its key."""
    attempt = ACTING_FOR.get()
    if attempt is None or attempt.tenant != tenant:
        return
    if not txn.claim_idempotency(attempt.key, attempt.token, attempt.started_at):
        raise ConflictError(f"Idempotency-Key {attempt.key!r}: another attempt of this request holds the key "
                            "now; this one does not act", field="Idempotency-Key", value=attempt.key)
