"""LongMemEval retrieval evaluation (Wu et al., 2024: "LongMemEval: Benchmarking Chat
Assistants on Long-Term Interactive Memory"), read from the benchmark's published JSON.

Conventions (documented in docs/recall.md):
- each instance (one question and its haystack) is ingested into its own tenant: one
  episode per turn, id ``<session id>:<turn index>``, speaker = the turn's role,
  session = the haystack session id; the session's date ("2023/05/20 (Sat) 02:21") is
  read as UTC and turn k is stamped k seconds later; search runs with the clock at the
  question's date;
- evidence turns are the turns marked ``has_answer``; evidence sessions are
  ``answer_session_ids``; turn recall counts only questions with an evidence turn;
- abstention questions (ids ending in ``_abs``) have no answer to find: they are skipped
  and counted in ``abstention``;
- cross-validation holds out one of five blocks of instances (instance i in block i mod 5).
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

FOLDS = 5
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\([A-Za-z]+\))?\s+(\d{1,2}):(\d{2})\s*$")
_REQUIRED = ("question_id", "question_type", "question", "haystack_session_ids", "haystack_dates",
             "haystack_sessions", "answer_session_ids")

Record = dict[str, Any]


def parse_date(text: object) -> datetime:
    """'2023/05/20 (Sat) 02:21' -> 2023-05-20T02:21Z (the data gives no zone; UTC is assumed)."""
    match = _DATE.match(str(text))
    if match is None:
        raise ValidationError("date", text, "expected e.g. '2023/05/20 (Sat) 02:21'")
    year, month, day, hour, minute = (int(part) for part in match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        raise ValidationError("date", text, "is not a calendar date") from None


def load_longmemeval(path: Path) -> list[Record]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValidationError("path", str(path), f"not a readable LongMemEval JSON file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise ValidationError("path", str(path), "must hold a list of LongMemEval instances")
    for number, item in enumerate(data):
        missing = [key for key in _REQUIRED if key not in item]
        if missing:
            raise ValidationError("path", str(path), f"instance {number} lacks {', '.join(missing)}")
        if not len(item["haystack_session_ids"]) == len(item["haystack_dates"]) == len(item["haystack_sessions"]):
            raise ValidationError("haystack_sessions", item["question_id"],
                                  "haystack_session_ids, haystack_dates and haystack_sessions differ in length")
    return data


def instance_of(item: Record, number: int) -> EvalInstance:
    episodes: list[Record] = []
    evidence: list[str] = []
    for session_id, date, turns in zip(item["haystack_session_ids"], item["haystack_dates"],
                                       item["haystack_sessions"], strict=True):
        start = parse_date(date)
        for index, turn in enumerate(turns):
            episode_id = f"{session_id}:{index}"
            if not str(turn.get("content", "")).strip():
                continue
            episodes.append({"id": episode_id, "at": start + timedelta(seconds=index), "text": str(turn["content"]),
                             "speaker": str(turn.get("role", "unknown")), "session": str(session_id)})
            if turn.get("has_answer"):
                evidence.append(episode_id)
    question = EvalQuestion(str(item["question"]), str(item["question_type"]), evidence,
                            {str(s) for s in item["answer_session_ids"]})
    return EvalInstance(tenant_name(str(item["question_id"])), f"block-{number % FOLDS}", episodes, [question],
                        now=parse_date(item["question_date"]) if item.get("question_date") else None,
                        session_of={e["id"]: e["session"] for e in episodes})


def evaluate_longmemeval(
    path: Path, *, embedder: Embedder | None = None, config: SearchConfig | str | None = None,
    progress: Callable[[str], None] | None = None, db: str | None = None, cv: bool = False,
    grid: Mapping[str, SearchConfig] | None = None,
) -> Record:
    """Session recall_any@k and turn recall (from ``has_answer``) of sgam search beside
    BM25 alone and vectors alone, overall and per question type."""
    items = load_longmemeval(path)
    abstention = sum(str(item["question_id"]).endswith("_abs") for item in items)
    instances = [instance_of(item, number) for number, item in enumerate(items)
                 if not str(item["question_id"]).endswith("_abs")]
    require_questions(instances, path)
    result = evaluate_instances(instances, skipped=0, embedder=embedder, config=config, progress=progress,
                                db=db, cv=cv, grid=grid, per="per_type")
    del result["skipped"]
    result["abstention"] = abstention
    return result
