"""LoCoMo retrieval evaluation: every conversation ingested as episodes, every question
asked through ``Memory.search``; recall of the annotated evidence turns and sessions.

Conventions (documented in docs/recall.md):
- one episode per turn: id = ``dia_id``, speaker, session = ``session_N``; image turns
  append ``[image: <blip_caption>]`` to the text;
- the session's "1:56 pm on 8 May, 2023" is read as UTC; turn k of a session is stamped
  k seconds after it, so turns keep their order in time;
- evidence entries are split on ``;``, ``,`` and spaces (upstream has a few joined ids,
  e.g. "D8:6; D9:17"); ids that do not name a turn of the conversation are dropped, and a
  question left with no evidence is skipped (counted in ``skipped``);
- questions are reported per category under the names of the LoCoMo paper, read from
  the dataset's numbers as 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
  5 adversarial (the reading of the Mem0 evaluation; category 5 questions are the ones
  that carry an ``adversarial_answer``, and category 2 the "When..." questions).
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .._errors import ValidationError
from .._memory import Memory
from ..search import Embedder, SearchConfig, resolve_config

TURN_KS = (1, 5, 10, 20)
SESSION_KS = (1, 5)
SEARCH_DEPTH = 50
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DIA_ID = re.compile(r"^D\d+:\d+$")

Record = dict[str, Any]
CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}


def category_name(category: object) -> str:
    return CATEGORY_NAMES.get(str(category), f"category {category}")


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


class _Tally:
    """Hits per cut-off, overall and per category."""

    def __init__(self) -> None:
        self.count = 0
        self.turn_any = dict.fromkeys(TURN_KS, 0)
        self.turn_all = dict.fromkeys(TURN_KS, 0)
        self.session_any = dict.fromkeys(SESSION_KS, 0)

    def add(self, ranked: list[str], sessions: list[str], evidence: list[str], wanted: set[str]) -> None:
        self.count += 1
        for k in TURN_KS:
            top = set(ranked[:k])
            self.turn_any[k] += any(e in top for e in evidence)
            self.turn_all[k] += all(e in top for e in evidence)
        for k in SESSION_KS:
            self.session_any[k] += bool(wanted & set(sessions[:k]))

    def report(self) -> Record:
        def share(hits: dict[int, int]) -> dict[str, float]:
            return {str(k): round(v / self.count, 4) if self.count else 0.0 for k, v in hits.items()}

        return {"questions": self.count, "turn_recall_any": share(self.turn_any),
                "turn_recall_all": share(self.turn_all), "session_recall_any": share(self.session_any)}


class _Run:
    def __init__(self) -> None:
        self.total = _Tally()
        self.categories: dict[str, _Tally] = {}

    def add(self, category: str, ranked: list[str], sessions: list[str], evidence: list[str],
            wanted: set[str]) -> None:
        self.total.add(ranked, sessions, evidence, wanted)
        self.categories.setdefault(category, _Tally()).add(ranked, sessions, evidence, wanted)

    def report(self) -> Record:
        result = self.total.report()
        result["per_category"] = {c: self.categories[c].report() for c in sorted(self.categories)}
        return result


def evaluate_locomo(
    path: Path, *, embedder: Embedder | None = None, config: SearchConfig | str | None = None,
    progress: Callable[[str], None] | None = None, db: str | None = None,
) -> Record:
    """Ingest each conversation into a fresh SQLite store (or, with ``db``, into its own
    tenant of that store, which must not hold it yet) and score sgam's search and the
    BM25-only baseline (the ``keyword`` preset) on the same questions."""
    samples = load_locomo(path)
    chosen, baseline = resolve_config(config), resolve_config("keyword")
    runs = {"sgam": _Run(), "bm25": _Run()}
    skipped = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sgam-locomo-") as folder:
        for sample in samples:
            tenant = re.sub(r"[^A-Za-z0-9_.-]", "_", str(sample.get("sample_id", "conversation")))
            episodes = conversation_episodes(sample)
            session_of = {e["id"]: e["session"] for e in episodes}
            with Memory(db or f"sqlite:///{Path(folder) / (tenant + '.db')}", embedder=embedder) as memory:
                if memory.episodes(tenant, limit=1):
                    raise ValidationError("db", tenant, "already holds this conversation's tenant: use an empty store")
                memory.add_episodes(tenant, episodes)
                for qa in sample.get("qa", []):
                    evidence = resolve_evidence(qa.get("evidence"), set(session_of))
                    if not evidence:
                        skipped += 1
                        continue
                    wanted = {session_of[e] for e in evidence}
                    for name, cfg in (("sgam", chosen), ("bm25", baseline)):
                        hits = memory.search(tenant, str(qa["question"]), limit=SEARCH_DEPTH, config=cfg)
                        ranked = [hit.episode_id for hit in hits]
                        sessions = list(dict.fromkeys(session_of[i] for i in ranked))
                        runs[name].add(category_name(qa.get("category", "?")), ranked, sessions, evidence,
                                       wanted)
            if progress is not None:
                progress(f"{tenant}: {len(episodes)} turns")
    result = runs["sgam"].report()
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["skipped"] = skipped
    result["baseline_bm25"] = runs["bm25"].report()
    ordered = ("questions", "seconds", "turn_recall_any", "turn_recall_all", "session_recall_any",
               "per_category", "baseline_bm25", "skipped")
    return {key: result[key] for key in ordered}
