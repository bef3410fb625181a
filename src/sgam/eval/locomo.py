"""LoCoMo retrieval evaluation: every conversation ingested as episodes, every question
asked through ``Memory.search``; recall of the annotated evidence turns and sessions.

Conventions (documented in docs/recall.md):
- one episode per turn: id = ``dia_id``, speaker, session = ``session_N``; image turns
  append ``[image: <blip_caption>]`` to the text;
- the session's "1:56 pm on 8 May, 2023" is read as UTC; turn k of a session is stamped
  k seconds after it, so turns keep their order in time;
- evidence entries are split on ``;``, ``,`` and spaces (upstream has a few joined ids,
  e.g. "D8:6; D9:17"); ids that do not name a turn of the conversation are dropped, and a
  question left with no evidence is skipped (counted in ``skipped``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .._core.errors import ValidationError
from ..search import Embedder, SearchConfig
from .runner import EvalInstance, EvalQuestion, evaluate_instances, require_questions, tenant_name

_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DIA_ID = re.compile(r"^D\d+:\d+$")

Record = dict[str, Any]


def load_locomo(path: Path) -> list[Record]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValidationError("path", str(path), f"not a readable LoCoMo JSON file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(s, dict) and "conversation" in s for s in data):
        raise ValidationError("path", str(path), "must hold a list of LoCoMo samples")
    return data


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56Z (LoCoMo gives no zone; UTC is assumed)."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        raise ValidationError("session_date_time", text, "expected e.g. '1:56 pm on 8 May, 2023'") from None


def conversation_episodes(sample: Record) -> list[Record]:
    conversation = sample["conversation"]
    episodes: list[Record] = []
    number = 1
    while f"session_{number}" in conversation:
        session = f"session_{number}"
        start = parse_session_time(conversation[f"{session}_date_time"])
        for index, turn in enumerate(conversation[session]):
            text = turn["text"]
            if turn.get("blip_caption"):
                text = f"{text} [image: {turn['blip_caption']}]"
            episodes.append({"id": turn["dia_id"], "at": start + timedelta(seconds=index), "text": text,
                             "speaker": turn["speaker"], "session": session})
        number += 1
    return episodes


def resolve_evidence(evidence: object, known: set[str]) -> list[str]:
    if not isinstance(evidence, list):
        return []
    found: dict[str, None] = {}
    for entry in evidence:
        for part in _EVIDENCE_SPLIT.split(str(entry)):
            if _DIA_ID.match(part) and part in known:
                found.setdefault(part, None)
    return list(found)


CATEGORIES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}


def locomo_instances(samples: list[Record]) -> tuple[list[EvalInstance], int]:
    """One instance (and cross-validation group) per conversation; also the number of
    questions skipped for lack of resolvable evidence."""
    instances: list[EvalInstance] = []
    skipped = 0
    for sample in samples:
        tenant = tenant_name(str(sample.get("sample_id", "conversation")))
        episodes = conversation_episodes(sample)
        session_of = {e["id"]: e["session"] for e in episodes}
        questions: list[EvalQuestion] = []
        for qa in sample.get("qa", []):
            evidence = resolve_evidence(qa.get("evidence"), set(session_of))
            if not evidence:
                skipped += 1
                continue
            category = str(qa.get("category", "?"))
            questions.append(EvalQuestion(str(qa["question"]), CATEGORIES.get(category, category), evidence,
                                          {session_of[e] for e in evidence}))
        instances.append(EvalInstance(tenant, tenant, episodes, questions, session_of=session_of))
    return instances, skipped


def evaluate_locomo(
    path: Path, *, embedder: Embedder | None = None, config: SearchConfig | str | None = None,
    progress: Callable[[str], None] | None = None, db: str | None = None, cv: bool = False,
    grid: Mapping[str, SearchConfig] | None = None,
) -> Record:
    """Ingest each conversation into a fresh SQLite store (or, with ``db``, into its own
    tenant of that store, which must not hold it yet) and score sgam's search beside BM25
    alone (the ``keyword`` preset) and, with an embedder, the vector ranking alone.

    With ``cv``, every configuration of ``grid`` (default ``GRID``) is scored and each
    conversation is scored with the one chosen on the other conversations."""
    instances, skipped = locomo_instances(load_locomo(path))
    require_questions(instances, path, skipped)
    return evaluate_instances(instances, skipped=skipped, embedder=embedder, config=config, progress=progress,
                              db=db, cv=cv, grid=grid, per="per_category")
