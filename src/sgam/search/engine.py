"""Hybrid evidence search: keyword and vector candidates, fused by RRF, lifted by their
conversational context, then scored with recency and importance (all normalised)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime

from .._time import from_micros
from ..store import SearchFilter, SearchIndex, StoredEpisode
from .config import SearchConfig
from .embedders import Embedder, embed_checked
from .fusion import min_max, reciprocal_rank_fusion
from .text import keywords

CONTEXT_SEEDS = 30
_DAY_MICROS = 86_400_000_000


@dataclass(frozen=True, slots=True)
class EvidenceHit:
    """One episode found as evidence, with what a citation needs."""

    episode_id: str
    at: datetime
    speaker: str | None
    session: str | None
    text: str
    score: float
    key: int


def search_evidence(
    index: SearchIndex, embedder: Embedder | None, tenant: str, question: str, config: SearchConfig,
    flt: SearchFilter, limit: int, now: int,
) -> list[EvidenceHit]:
    """The ``limit`` best episodes for ``question``; ``now`` anchors recency."""
    rankings: list[list[int]] = []
    weights: list[float] = []
    terms = keywords(question)
    if config.keyword and terms:
        rankings.append(index.keyword_episodes(tenant, terms, flt, config.keyword_candidates))
        weights.append(config.keyword_weight)
    if config.vector and embedder is not None:
        vector = embed_checked(embedder, [question])[0]
        rankings.append(index.vector_episodes(tenant, embedder.name, vector, flt, config.vector_candidates))
        weights.append(config.vector_weight)
    fused = reciprocal_rank_fusion(rankings, k=config.rrf_k, weights=weights)
    if not fused:
        return []
    rows = index.episodes_by_key(tenant, list(fused))
    base = min_max({key: score for key, score in fused.items() if key in rows})
    if config.neighbour_weight > 0 or config.session_weight > 0:
        relevance = _in_context(index, tenant, base, rows, config, flt)
    else:
        relevance = base
    relevance = min_max(relevance)
    named = set(terms)
    scored = {
        key: config.relevance_weight * value
        + config.speaker_weight * _speaker_named(rows[key].row.speaker, named)
        + config.recency_weight * _recency(rows[key].row.occurred_at, now, config.recency_half_life_days)
        + config.importance_weight * _importance(rows[key].row.metadata)
        for key, value in relevance.items()
    }
    best = sorted(scored, key=lambda key: (-scored[key], key))[:limit]
    return [_hit(rows[key], scored[key]) for key in best]


def _in_context(
    index: SearchIndex, tenant: str, base: dict[int, float], rows: dict[int, StoredEpisode],
    config: SearchConfig, flt: SearchFilter,
) -> dict[int, float]:
    """A turn inherits part of its best adjacent turn's relevance, and of its session's.

    Both are computed at query time from the ledger's own rows, so no episode's index
    entry ever contains another episode's text (which an erasure could not reach)."""
    seeds = sorted(base, key=lambda key: -base[key])[:CONTEXT_SEEDS]
    wanted = {near for key in seeds for near in (key - 1, key + 1)} - rows.keys()
    if wanted and config.neighbour_weight > 0:
        rows.update((k, v) for k, v in index.episodes_by_key(tenant, sorted(wanted)).items() if _allowed(v, flt))
    sessions: dict[str | None, float] = {}
    for key, value in base.items():
        session = rows[key].row.session
        sessions[session] = sessions.get(session, 0.0) + value
    session_score = min_max(sessions) if len(sessions) > 1 else dict.fromkeys(sessions, 0.0)
    scores: dict[int, float] = {}
    for key, stored in rows.items():
        session = stored.row.session
        near = max(
            (base.get(other, 0.0) for other in (key - 1, key + 1)
             if other in rows and rows[other].row.session == session),
            default=0.0,
        )
        scores[key] = (base.get(key, 0.0) + config.neighbour_weight * near
                       + config.session_weight * session_score.get(session, 0.0))
    return scores


def _allowed(stored: StoredEpisode, flt: SearchFilter) -> bool:
    row = stored.row
    return ((flt.since is None or row.occurred_at >= flt.since)
            and (flt.until is None or row.occurred_at <= flt.until)
            and (flt.known_at is None or row.recorded_at <= flt.known_at)
            and (flt.session is None or row.session == flt.session)
            and (flt.speaker is None or row.speaker == flt.speaker)
            and flt.subject is None and flt.memory_type is None)


def _speaker_named(speaker: str | None, named: set[str]) -> float:
    """1 when the question names the turn's speaker ("what did Jon say..."): their own
    turns are the likelier evidence."""
    words = keywords(speaker) if speaker else []
    return 1.0 if words and all(word in named for word in words) else 0.0


def _recency(occurred_at: int, now: int, half_life_days: float) -> float:
    age_days = max(0, now - occurred_at) / _DAY_MICROS
    return math.exp(-math.log(2) * age_days / half_life_days)


def _importance(metadata: str) -> float:
    if "importance" not in metadata:
        return 0.5
    try:
        value = json.loads(metadata).get("importance", 0.5)
    except (ValueError, AttributeError):
        return 0.5
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.5
    return min(1.0, max(0.0, float(value)))


def _hit(stored: StoredEpisode, score: float) -> EvidenceHit:
    row = stored.row
    return EvidenceHit(row.episode_id, from_micros(row.occurred_at), row.speaker, row.session, row.text,
                       round(score, 6), stored.key)
