"""The idempotent request a unit of work acts for: every write committed while a request
holds an ``Idempotency-Key`` marks the key's reservation in the write's own transaction.

So the mark and the effect commit together or not at all: a reservation that outlives a
crashed server says whether its request took effect, and a retry never has to guess. A
write for an attempt that no longer holds its key (a retry took over the reservation)
rolls back instead of acting a second time. The HTTP surface names the attempt in the
call's ``CallContext``; the backend gives it to the unit of work as ``acting_for``.
"""

from __future__ import annotations

from .._core.errors import ConflictError
from .contract import WriteTransaction


def mark_acted(txn: WriteTransaction) -> None:
    """Before a write commits: record that the attempt acted, or refuse the write when the
    attempt has lost its key."""
    attempt = txn.acting_for
    if attempt is None:
        return
    if not txn.claim_idempotency(attempt.key, attempt.token, attempt.started_at):
        raise ConflictError(f"Idempotency-Key {attempt.key!r}: another attempt of this request holds the key "
                            "now; this one does not act", field="Idempotency-Key", value=attempt.key)
