"""What an erasure would remove, found by running it.

The preview runs the same erasure as ``forget_subject`` or ``forget_episode`` inside a
write transaction that its caller then rolls back. Every key whose versions the erasure
replaces is seen as it goes (its versions holding before the first replacement, and
after the erasure), so the preview names exactly the keys the erasure changes, aliases,
spellings and relations included, not an estimate kept in step by hand.
"""

from __future__ import annotations

from typing import Any, cast

from .._core.model import ErasurePreview, KeyChange
from .._core.purpose import split_attribute
from .._core.rules import Version
from ..ledger.records import to_assertions
from ..store import WriteTransaction
from .erasure import forget_episode, forget_subject
from .participants import Reach


class _Watched:
    """A write transaction that remembers each key's current versions before the first
    time its versions are replaced; every other call goes to the transaction itself."""

    def __init__(self, txn: WriteTransaction) -> None:
        self._txn = txn
        self.before: dict[tuple[str, str], list[Version]] = {}

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        key = (subject, attribute)
        if key not in self.before:
            self.before[key] = self._txn.current(subject, attribute)
        self._txn.replace_versions(subject, attribute, versions)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._txn, name)


def erase_for_preview(
    txn: WriteTransaction, tenant: str, kind: str, target: str, now: int, reach: Reach,
) -> ErasurePreview:
    """Erase ``target`` in ``txn`` and say what changed; the caller must roll ``txn``
    back. ``target`` is already checked (a subject's id normalised)."""
    means = txn.resolve_subject(target) if kind == "subject" else None
    watched = _Watched(txn)
    erase = forget_subject if kind == "subject" else forget_episode
    erased = erase(cast(WriteTransaction, watched), target, now, reach, "preview")
    keys = []
    for subject, attribute in sorted(watched.before):
        before, after = watched.before[(subject, attribute)], txn.current(subject, attribute)
        if not before and not after:  # held nothing and holds nothing: no timeline shown changes
            continue
        keys.append(KeyChange(subject, split_attribute(attribute)[0], to_assertions(tenant, before),
                              to_assertions(tenant, after)))
    return ErasurePreview(kind, target, erased.operations, erased.episodes, keys, means)
