"""Extraction records inside the lifecycle: a record quotes the episode it read and the
model's reply, so erasure reaches it as a participant (``sgam.lifecycle.participants``).

An erased or text-dropped episode takes its records with it. An erased subject takes the
decisions about it out of every record, and the raw reply of a record that named it. An
erased value (an episode's write, a relation to an erased subject) takes out the
decisions that showed it to the model as the key's current or new value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from .._core.errors import SgamError
from .._core.purpose import split_attribute
from .._core.values import canonical_json
from ..lifecycle.erasure import names
from ..lifecycle.participants import Erased, Participant
from ..store import WriteTransaction


class ExtractionRecords(Participant):
    """What extraction keeps of episodes and subjects: its records of each run."""

    def episodes_erased(self, txn: WriteTransaction, episode_ids: list[str]) -> Erased | None:
        for episode_id in episode_ids:
            txn.delete_extraction_records(episode_id)
        return None

    def texts_dropped(self, txn: WriteTransaction, episode_ids: list[str]) -> None:
        self.episodes_erased(txn, episode_ids)  # a record quotes the text: it goes with it

    def subjects_erased(self, txn: WriteTransaction, subjects: list[str]) -> Erased | None:
        for subject in subjects:
            _redact(txn, subject, lambda candidate: True, drop_naming_replies=True)
        return None

    def values_erased(self, txn: WriteTransaction, subject: str, attribute: str, gone: set[str]) -> None:
        _redact(txn, subject, partial(_shows, attribute=split_attribute(attribute)[0], gone=gone))


def _shows(candidate: dict[str, Any], attribute: str, gone: set[str]) -> bool:
    """A candidate of the key that carries (as current or new value) an erased value."""
    if candidate.get("attribute") != attribute:
        return False
    try:
        shown = {canonical_json(candidate.get(f)) for f in ("current_value", "value") if candidate.get(f) is not None}
    except SgamError:
        return True
    return bool(shown & gone)


def _redact(
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


def _about(decision: Any, subject: str) -> bool:
    candidate = decision.get("candidate") if isinstance(decision, dict) else None
    return isinstance(candidate, dict) and candidate.get("subject") == subject
