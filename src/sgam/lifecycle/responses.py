"""Stored idempotent responses inside erasure: a response is a copy of what its request
read or wrote.

The HTTP service keeps each idempotent request's response so that a retry is answered
the same; an erasure must not leave what it removed quoted there. As a participant, the
stored responses are told the names every erasure removes (subjects, episode ids, and
what the other participants removed that a response may quote) once the other hooks
have run, and empty each response naming one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..store import WriteTransaction
from .erasure import names
from .participants import Participant


class StoredResponses(Participant):
    """What the idempotency records keep of erased subjects, episodes and documents."""

    def names_erased(self, txn: WriteTransaction, erased: list[str], now: int) -> None:
        redact_stored_responses(txn, erased, now)


def redact_stored_responses(txn: WriteTransaction, erased: Iterable[str], now: int) -> None:
    """A stored idempotent response is a copy: empty every one that names an erased
    subject or episode (as written or JSON-escaped, like a raw model reply; a response
    quotes a value only beside its subject, an episode's text only beside its id), and
    those of requests still in flight, whose responses are not stored yet (not the one
    this erasure runs for: an expiry its own write settled)."""
    wanted = list(dict.fromkeys(erased))
    needles = [*wanted, *(json.dumps(name, ensure_ascii=False)[1:-1] for name in wanted), "\\"]
    acting = txn.acting_for
    txn.redact_idempotency([row.key for row in txn.idempotency_responses_naming(needles)
                            if row.response and any(names(row.response, name) for name in wanted)], now,
                           None if acting is None else acting.key)
