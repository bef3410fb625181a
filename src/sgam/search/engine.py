"""Hybrid evidence search in two steps: ``gather`` asks the index for everything a
configuration needs (keyword, feedback and vector rankings, rows, neighbouring turns,
session coverage); ``rank`` scores those candidates with no further I/O. The split lets an
evaluation gather once and rank under many configurations, scoring exactly what a
search with each of them returns."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .._core.time import from_micros
from ..store import EpisodeRow, KeywordQuery, Reader, SearchFilter, SearchIndex, StoredEpisode, VectorQuery
from .config import SearchConfig
from .dates import TimeWindow, named_window
from .embedders import Embedder, embed_query
from .fusion import above_floor, min_max, reciprocal_rank_fusion, rrf_floor
from .signals import (
    TermMatcher,
    asks_about_present,
    asks_about_time,
    feedback_terms,
    mentions_time,
    same_statement,
    session_coverage,
    word_set,
)
from .text import keywords

CONTEXT_SEEDS = 30
COVERAGE_DEPTH = 100
PRESENT_DEPTH = 50  # the best candidates regrouped by statement for a present-tense question
_DAY_MICROS = 86_400_000_000
_BELOW = 0.999  # how far under the floor of full matches a scaled unmatched row lands


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


@dataclass
class Candidates:
    """What the index returned for one question: rankings of episode keys (best first),
    the rows behind them and their neighbours, per-session coverage of the words, and
    which rows hold some of the question's words (``sharing``) or all of them
    (``holding_all``), by the keyword index's own matching."""

    question: str
    terms: list[str]
    keyword: list[int] = field(default_factory=list)
    vector: list[int] = field(default_factory=list)
    expanded: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    rows: dict[int, StoredEpisode] = field(default_factory=dict)
    coverage: dict[tuple[int, tuple[int, int] | None], dict[str | None, float]] = field(default_factory=dict)
    window: TimeWindow | None = None
    sharing: set[int] = field(default_factory=set)
    holding_all: set[int] = field(default_factory=set)


def search_evidence(
    index: SearchIndex, embedder: Embedder | None, reader: Reader, question: str, config: SearchConfig,
    flt: SearchFilter, limit: int, now: int,
) -> list[EvidenceHit]:
    """The ``limit`` best episodes for ``question``, read in ``reader``; ``now`` anchors recency."""
    found = gather(index, embedder, reader, question, [config], flt, now)
    return [hit(found.rows[key], score) for key, score in rank(found, config, limit, now)]


def keyword_query(terms: list[str], configs: Sequence[SearchConfig]) -> KeywordQuery | None:
    """The keyword channel ``gather`` asks the index for (None: none of ``configs`` reads
    it, or the question has no words): as deep as the deepest config reads it."""
    wants_keyword = [c for c in configs if c.keyword or _feedback(c) or c.session_doc_weight > 0]
    if not wants_keyword or not terms:
        return None
    depth = max(c.keyword_candidates for c in wants_keyword)
    if any(c.session_doc_weight > 0 for c in configs):
        depth = max(depth, COVERAGE_DEPTH)
    return KeywordQuery(terms, depth)


def gather(
    index: SearchIndex, embedder: Embedder | None, reader: Reader, question: str,
    configs: Sequence[SearchConfig], flt: SearchFilter, now: int,
) -> Candidates:
    """Everything any of ``configs`` will rank, fetched once in the caller's read; ``now``
    anchors relative times in the question ("last year"). The question's vector is
    usually made already (``SearchService.embed_question``, before the read opened), so
    ``embed_query`` finds it remembered."""
    found = Candidates(question, keywords(question))
    if any(c.date_weight > 0 for c in configs):
        found.window = named_window(question, now)
    by_keyword, by_vector = keyword_query(found.terms, configs), None
    wants_vector = [c for c in configs if c.vector]
    if wants_vector and embedder is not None:
        by_vector = VectorQuery(embedder.name, embed_query(embedder, question),
                                max(c.vector_candidates for c in wants_vector))
    found.keyword, found.vector, found.rows = index.candidate_episodes(reader, flt, by_keyword, by_vector)
    for config in configs:
        if _feedback(config):
            _expand(index, reader, found, config, flt)
    wanted = {near for config in configs if config.neighbour_weight > 0
              for key in _seeds(found, config) for near in (key - 1, key + 1)} - found.rows.keys()
    if wanted:
        found.rows.update((k, v) for k, v in index.episodes_by_key(reader, sorted(wanted)).items()
                          if _allowed(v, flt))
    if found.terms and found.rows:
        _word_matches(index, reader, found)
    if found.terms:
        for reads in {_coverage_reads(found, c) for c in configs if c.session_doc_weight > 0}:
            found.coverage[reads] = _coverage(found, *reads)
    return found


def _word_matches(index: SearchIndex, reader: Reader, found: Candidates) -> None:
    """Which rows share a word with the question and which hold every one, as the index
    matches words (its stemmer, its tokens)."""
    holding = index.episodes_holding(reader, found.terms, sorted(found.rows))
    found.sharing = set(holding)
    found.holding_all = {key for key, every in holding.items() if every}


def rank(found: Candidates, config: SearchConfig, limit: int, now: int) -> list[tuple[int, float]]:
    """(key, score) of the ``limit`` best candidates under ``config``, best first.

    Two rules hold whatever the weights: without a vector ranking, a row that shares no
    word with the question is not evidence and is not returned (adjacent-turn and
    session context lift matching turns, they do not make new ones); and a row that
    shares none never ranks above one that holds every word of the question."""
    fused = _fused(found, config)
    if not fused:
        return []
    base = _normalised(found, config, fused)
    rows = {key: found.rows[key] for key in base}
    if config.neighbour_weight > 0:
        for key in _seeds(found, config):
            rows.update((near, found.rows[near]) for near in (key - 1, key + 1) if near in found.rows)
    if config.neighbour_weight > 0 or config.session_weight > 0 or config.session_doc_weight > 0:
        coverage = found.coverage.get(_coverage_reads(found, config), {})
        relevance = min_max(_in_context(base, rows, config, coverage))
    else:
        relevance = base
    if found.terms and not (config.vector and found.vector):
        relevance = {key: value for key, value in relevance.items() if key in found.sharing}
    scored = {key: config.relevance_weight * value for key, value in relevance.items()}
    _add_bonuses(scored, found, rows, config, now)
    if config.present_first and asks_about_present(found.question):
        _newest_first(scored, rows)
    unmatched = _below_every_word(scored, found) if found.terms else set()
    best = sorted(scored, key=lambda key: (-scored[key], key in unmatched, key))[:limit]
    return [(key, scored[key]) for key in best]


def _below_every_word(scored: dict[int, float], found: Candidates) -> set[int]:
    """Scale the scores of rows sharing no word with the question (found by meaning or
    lifted by context) below the lowest score of a row holding all of them, keeping
    their order among themselves; returns those rows (they lose ties)."""
    unmatched = {key for key in scored if key not in found.sharing}
    floor = min((scored[key] for key in scored if key in found.holding_all), default=None)
    if floor is None or not unmatched:
        return unmatched
    high = max(scored[key] for key in unmatched)
    if high >= floor:
        factor = floor / high * _BELOW if high > 0 else 0.0
        for key in unmatched:
            scored[key] *= factor
    return unmatched


def _add_bonuses(scored: dict[int, float], found: Candidates, rows: dict[int, StoredEpisode],
                 config: SearchConfig, now: int) -> None:
    """Speaker, recency, importance, present-tense and time bonuses, each only when its
    weight is set (they are the per-row part of ranking, so skipped work counts). Each
    row's bonuses are added in that order, in one pass over the rows."""
    named = set(found.terms)
    speakers = {name: _speaker_named(name, named) for name in {s.row.speaker for s in rows.values()}}
    window = found.window if config.date_weight > 0 else None
    bonuses: list[tuple[float, Callable[[EpisodeRow], float]]] = []
    if config.speaker_weight > 0:
        bonuses.append((config.speaker_weight, lambda row: speakers[row.speaker]))
    if config.recency_weight > 0:
        half_life = config.recency_half_life_days
        bonuses.append((config.recency_weight, lambda row: _recency(row.occurred_at, now, half_life)))
    if config.importance_weight > 0:
        bonuses.append((config.importance_weight, lambda row: _importance(row.metadata)))
    if config.when_weight > 0 and asks_about_time(found.question):
        bonuses.append((config.when_weight, lambda row: 1.0 if mentions_time(row.text) else 0.0))
    if window is not None:
        bonuses.append((config.date_weight, lambda row: 1.0 if window.holds(row.occurred_at) else 0.0))
    if not bonuses:
        return
    for key, score in scored.items():
        row = rows[key].row
        for weight, value in bonuses:
            score += weight * value(row)
        scored[key] = score


def _feedback(config: SearchConfig) -> bool:
    return config.feedback_weight > 0 and config.feedback_terms > 0


def _fused(found: Candidates, config: SearchConfig) -> dict[int, float]:
    rankings, weights, _ = _rankings(found, config)
    fused = reciprocal_rank_fusion(rankings, k=config.rrf_k, weights=weights)
    return {key: score for key, score in fused.items() if key in found.rows}


def _normalised(found: Candidates, config: SearchConfig, fused: dict[int, float]) -> dict[int, float]:
    """Fused scores in [0, 1], 0 being what a candidate just past every ranking's depth
    would score: the weakest of a few matches keeps its share."""
    _, weights, depths = _rankings(found, config)
    return above_floor(fused, rrf_floor(depths, k=config.rrf_k, weights=weights))


def _rankings(found: Candidates, config: SearchConfig) -> tuple[list[list[int]], list[float], list[int]]:
    """The rankings ``config`` fuses, their weights and the depth each is cut at."""
    rankings: list[list[int]] = []
    weights: list[float] = []
    depths: list[int] = []
    if config.keyword and found.keyword:
        rankings.append(found.keyword[:config.keyword_candidates])
        weights.append(config.keyword_weight)
        depths.append(config.keyword_candidates)
    expanded = found.expanded.get((config.feedback_docs, config.feedback_terms)) if _feedback(config) else None
    if expanded:
        rankings.append(expanded[:config.keyword_candidates])
        weights.append(config.feedback_weight)
        depths.append(config.keyword_candidates)
    if config.vector and found.vector:
        rankings.append(found.vector[:config.vector_candidates])
        weights.append(config.vector_weight)
        depths.append(config.vector_candidates)
    return rankings, weights, depths


def _seeds(found: Candidates, config: SearchConfig) -> list[int]:
    fused = _fused(found, config)
    return sorted(fused, key=lambda key: -fused[key])[:CONTEXT_SEEDS]


def _expand(index: SearchIndex, reader: Reader, found: Candidates, config: SearchConfig, flt: SearchFilter) -> None:
    """The keyword ranking of the question plus words its top keyword results share."""
    setting = (config.feedback_docs, config.feedback_terms)
    if setting in found.expanded:
        return
    top = [found.rows[key] for key in found.keyword[:config.feedback_docs] if key in found.rows]
    speakers = frozenset(word for stored in found.rows.values() for word in keywords(stored.row.speaker or ""))
    extra = feedback_terms([s.row.text for s in top], found.terms, config.feedback_terms, speakers)
    if not extra:
        found.expanded[setting] = []
        return
    ranking = index.keyword_episodes(reader, found.terms + extra, flt, config.keyword_candidates)
    missing = [key for key in ranking if key not in found.rows]
    if missing:
        found.rows.update(index.episodes_by_key(reader, missing))
    found.expanded[setting] = ranking


def _coverage_reads(found: Candidates, config: SearchConfig) -> tuple[int, tuple[int, int] | None]:
    """Which rankings a configuration's session coverage reads besides the top keyword
    results: how many vector candidates, and which feedback expansion (if any)."""
    depth = min(config.vector_candidates, len(found.vector)) if config.vector else 0
    return depth, (config.feedback_docs, config.feedback_terms) if _feedback(config) else None


def _coverage(found: Candidates, vector_depth: int, feedback: tuple[int, int] | None) -> dict[str | None, float]:
    """Per-session coverage of the question's words over the turns the configuration
    ranks: the top keyword results, its vector candidates (turns close in meaning that
    also hold some of the words) and its feedback-expanded ranking. Which words each turn
    holds is read from its text (a shared stem-like prefix), so no query per word is
    needed."""
    keys = found.keyword[:COVERAGE_DEPTH] + found.vector[:vector_depth]
    if feedback is not None:
        keys += found.expanded.get(feedback, [])
    hits: dict[str, list[str | None]] = {term: [] for term in found.terms}
    matcher = TermMatcher(found.terms)
    for key in dict.fromkeys(keys):
        stored = found.rows.get(key)
        if stored is not None:
            for term in matcher.matched(stored.row.text):
                hits[term].append(stored.row.session)
    return session_coverage(hits, COVERAGE_DEPTH)


def _in_context(
    base: dict[int, float], rows: dict[int, StoredEpisode], config: SearchConfig,
    coverage: dict[str | None, float],
) -> dict[int, float]:
    """A turn inherits part of its best adjacent turn's relevance, of its session's total
    relevance and of its session's coverage of the question. Only turns of a session
    do: episodes recorded without one are separate notes, and the one recorded next to a
    match is no closer to the question for it.

    All are computed at query time from the ledger's own rows, so no episode's index
    entry ever contains another episode's text (which an erasure could not reach)."""
    sessions: dict[str | None, float] = {}
    for key, value in base.items():
        session = rows[key].row.session
        if session is not None:
            sessions[session] = sessions.get(session, 0.0) + value
    coverage = {session: value for session, value in coverage.items() if session is not None}
    session_score = min_max(sessions) if len(sessions) > 1 else dict.fromkeys(sessions, 0.0)
    covered = min_max(coverage) if len(coverage) > 1 else dict.fromkeys(coverage, 0.0)
    scores: dict[int, float] = {}
    neighbour_weight, session_weight, doc_weight = config.neighbour_weight, config.session_weight, \
        config.session_doc_weight
    for key, stored in rows.items():
        session = stored.row.session
        near = 0.0  # relevance is in [0, 1], so this is the best adjacent turn's, or 0 without one
        for other in (key - 1, key + 1) if session is not None else ():
            adjacent = rows.get(other)
            if adjacent is not None and adjacent.row.session == session:
                near = max(near, base.get(other, 0.0))
        scores[key] = (base.get(key, 0.0) + neighbour_weight * near
                       + session_weight * session_score.get(session, 0.0)
                       + doc_weight * covered.get(session, 0.0))
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


def _newest_first(scored: dict[int, float], rows: dict[int, StoredEpisode]) -> None:
    """Candidates that say nearly the same thing ("Mira moved to Lyon", "Mira moved to
    Oslo": versions of one statement) hand their scores out again newest first: the
    group keeps its places in the ranking, and the latest version takes the best one."""
    groups: list[tuple[set[str], list[int]]] = []
    for key in sorted(scored, key=lambda key: (-scored[key], key))[:PRESENT_DEPTH]:
        words = word_set(rows[key].row.text)
        for first, members in groups:
            if same_statement(first, words):
                members.append(key)
                break
        else:
            groups.append((words, [key]))
    for _, members in groups:
        if len(members) > 1:
            scores = sorted((scored[key] for key in members), reverse=True)
            newest = sorted(members, key=lambda key: (-rows[key].row.occurred_at, -key))
            scored.update(zip(newest, scores, strict=True))


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


def hit(stored: StoredEpisode, score: float) -> EvidenceHit:
    row = stored.row
    return EvidenceHit(row.episode_id, from_micros(row.occurred_at), row.speaker, row.session, row.text,
                       round(score, 6), stored.key)
