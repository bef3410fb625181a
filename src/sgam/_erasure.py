"""Erasure: remove data so that every read answers as if it had never been recorded.

The operation log is the truth, so erasing means deleting log entries (and the episode)
and re-deriving each touched key with the same planner the write path uses. Records that
quote erased values (extraction replies and decisions) are redacted in the same
transaction; a content-free tombstone says that an erasure happened.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from ._errors import NotFoundError, SgamError
from ._rules import KeyTimeline
from ._values import canonical_json
from .store import WriteTransaction


def forget_subject(txn: WriteTransaction, subject: str, now: int) -> tuple[int, int, int]:
    """Delete every operation of the subject and empty its keys; no re-derivation is
    needed because nothing of those keys remains."""
    keys = txn.keys_of_subject(subject)
    removed = txn.delete_operations_of_subject(subject)
    txn.delete_held_of_subject(subject)
    _redact_extractions_of_subject(txn, subject)
    for key_subject, attribute in keys:
        txn.replace_versions(key_subject, attribute, [])
    if removed:
        txn.record_erasure("subject", _digest(txn.tenant, subject), now, removed)
    return removed, 0, len(keys)


def forget_episode(txn: WriteTransaction, episode_id: str, now: int) -> tuple[int, int, int]:
    """Delete the episode and the operations it sourced, then re-derive each touched key
    from what remains of its log: neighbours those operations closed hold again."""
    if txn.episode(episode_id) is None:
        raise NotFoundError(
            f"episode: no episode {episode_id!r} in tenant {txn.tenant!r}",
            field="episode", value=episode_id,
        )
    keys = txn.keys_of_source(episode_id)
    erased = {key: {op.value for op in txn.operations(*key) if op.source == episode_id and op.value}
              for key in keys}
    removed = txn.delete_operations_of_source(episode_id)
    for subject, attribute in keys:
        remaining = txn.operations(subject, attribute)
        timeline = KeyTimeline()
        timeline.replay(remaining)
        txn.replace_versions(subject, attribute, timeline.all_versions())
        gone = erased[(subject, attribute)] - {op.value for op in remaining}
        if gone:  # other episodes' extractions showed the model these values
            _redact_extractions(txn, subject, partial(_shows, attribute=attribute, gone=gone))
    txn.delete_extraction_records(episode_id)
    episodes = txn.delete_episode(episode_id)
    txn.record_erasure("episode", _digest(txn.tenant, episode_id), now, removed)
    return removed, episodes, len(keys)


def _redact_extractions_of_subject(txn: WriteTransaction, subject: str) -> None:
    """Erasure of a subject reaches the extraction records too: decisions about it are
    removed, and a raw reply that names it is dropped (it quotes the erased values)."""
    _redact_extractions(txn, subject, lambda candidate: True, drop_naming_replies=True)


def _shows(candidate: dict[str, Any], attribute: str, gone: set[str]) -> bool:
    """A candidate of the key that carries (as current or new value) an erased value."""
    if candidate.get("attribute") != attribute:
        return False
    try:
        shown = {canonical_json(candidate.get(f)) for f in ("current_value", "value") if candidate.get(f) is not None}
    except SgamError:
        return True
    return bool(shown & gone)


def _redact_extractions(
    txn: WriteTransaction, subject: str, erased: Callable[[dict[str, Any]], bool],
    drop_naming_replies: bool = False,
) -> None:
    """Remove the decisions about ``subject`` that ``erased`` selects from every extraction
    record, and the raw reply of each record that lost one.

    Replies are matched on their decoded content: a server may send ``zoë`` as
    ``zo\\u00eb``, so every record with a backslash escape is a candidate, read decoded."""
    escaped = json.dumps(subject, ensure_ascii=False)[1:-1]
    needles = list(dict.fromkeys([subject, escaped, "\\"]))
    for row in txn.extractions_mentioning(needles):
        decisions = json.loads(row.decisions)
        kept = [d for d in decisions if not (_about(d, subject) and erased(d["candidate"]))]
        raw_reply = row.raw_reply
        if len(kept) != len(decisions) or (
            drop_naming_replies and raw_reply is not None and names(raw_reply, subject)
        ):
            raw_reply = None
        if raw_reply != row.raw_reply or len(kept) != len(decisions):
            txn.redact_extraction(row.seq, raw_reply, json.dumps(kept, ensure_ascii=False))


_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def names(text: str, subject: str) -> bool:
    """Whether ``text`` contains ``subject`` as written or once its JSON escapes are
    decoded (whether or not the text as a whole is JSON; surrogate pairs joined)."""
    if subject in text:
        return True
    if "\\" not in text:
        return False
    decoded = _ESCAPE.sub(
        lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "u" else _SIMPLE_ESCAPES[m.group(1)], text
    )
    return subject in decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _about(decision: Any, subject: str) -> bool:
    candidate = decision.get("candidate") if isinstance(decision, dict) else None
    return isinstance(candidate, dict) and candidate.get("subject") == subject


def _digest(tenant: str, target: str) -> str:
    return hashlib.sha256(f"{tenant}\x1f{target}".encode()).hexdigest()
