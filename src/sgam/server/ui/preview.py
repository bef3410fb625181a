"""What an erasure would remove, computed by running it and rolling it back.

The erasure runs in a real write transaction through the same code as ``forget_subject``
and ``forget_episode``; the timelines of the keys it touches are read inside that
transaction, and then the transaction is abandoned. So the preview is exactly what the
erasure will do at that moment, not an estimate kept in step by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..._core.rules import Version
from ...lifecycle.erasure import forget_episode, forget_subject, with_derivatives
from ...memory.facade import Memory
from ...store import WriteTransaction
from .timeline import short_time


@dataclass(frozen=True, slots=True)
class KeyChange:
    subject: str
    attribute: str
    before: list[str]
    after: list[str]


@dataclass(slots=True)
class ErasurePreview:
    target_kind: str
    target: str
    operations: int = 0
    episodes: int = 0
    keys: list[KeyChange] = field(default_factory=list)


class _Abandon(Exception):
    """Carries the preview out of the transaction it rolls back."""

    def __init__(self, preview: ErasurePreview) -> None:
        super().__init__("preview")
        self.preview = preview


def preview_erasure(memory: Memory, tenant: str, kind: str, target: str) -> ErasurePreview:
    ledger = memory.ledger

    def run(txn: WriteTransaction) -> None:
        if kind == "subject":
            keys = set(txn.keys_of_subject(target))
        else:
            keys = {key for doomed in with_derivatives(txn, [target]) for key in txn.keys_of_source(doomed)}
        before = {key: txn.current(*key) for key in keys}
        if kind == "subject":
            erased = forget_subject(txn, target, ledger.now(), ledger.reach, "preview")
        else:
            erased = forget_episode(txn, target, ledger.now(), ledger.reach, "preview")
        preview = ErasurePreview(kind, target, erased.operations, erased.episodes)
        for key in sorted(keys):
            after = txn.current(*key)
            preview.keys.append(KeyChange(key[0], key[1], _values(before[key]), _values(after)))
        raise _Abandon(preview)

    try:
        ledger.run_write(tenant, run)
    except _Abandon as abandoned:
        return abandoned.preview
    raise AssertionError("the preview transaction always abandons")  # pragma: no cover


def _values(versions: list[Version]) -> list[str]:
    return [f"{v.value} [{short_time(v.valid_from)} → {'open' if v.valid_to is None else short_time(v.valid_to)})"
            for v in versions]
