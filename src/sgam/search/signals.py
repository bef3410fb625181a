"""What a question says about the evidence it wants, beyond its words: whether it asks
about the present or about a time, which words the first results add (pseudo-relevance
feedback), and how much of the question each session covers. Plain functions over text
and rows, so each is tested alone."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from .text import STOPWORDS, keywords

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# A question in the present tense about a state ("where does Mira live?", "what is her
# job now?") wants the latest evidence; one that names the past ("did", "was", "used
# to", "first", "before") or a time ("when", "in 2021") does not.
_PRESENT = frozenset("does do is are am currently current now nowadays today".split())
_PAST = frozenset(
    """did was were had used ago before first originally previously last earlier former formerly then
    when year years month months week weeks yesterday past""".split()
)
_ASKS_TIME = re.compile(
    r"^\s*(when|what\s+(year|month|day|date|time|week)|how\s+long\s+ago|which\s+(year|month|day|date|week))\b",
    re.IGNORECASE,
)
# Words that place an event in time: relative ("yesterday", "last week") or absolute
# (month names, weekdays, years). Evidence for "when did..." usually carries one.
_TIME_WORDS = frozenset(
    """yesterday today tonight tomorrow ago last next week weekend weekends month months year years
    recently lately earlier soon ago morning evening night monday tuesday wednesday thursday friday
    saturday sunday january february march april may june july august september october november
    december spring summer autumn fall winter since""".split()
)
_YEAR = re.compile(r"\b(19|20)\d\d\b")
FEEDBACK_MIN_LENGTH = 3


def asks_about_present(question: str) -> bool:
    words = {w.lower() for w in _WORD.findall(question)}
    return bool(words & _PRESENT) and not words & _PAST and not _YEAR.search(question)


def asks_about_time(question: str) -> bool:
    return bool(_ASKS_TIME.search(question))


def mentions_time(text: str) -> bool:
    words = {w.lower() for w in _WORD.findall(text)}
    return bool(words & _TIME_WORDS) or bool(_YEAR.search(text))


SAME_STATEMENT = 0.5


def word_set(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def same_statement(first: set[str], second: set[str]) -> bool:
    """Two texts that share most of their words (Jaccard >= 0.5) are versions of one
    statement: "Mira moved to Lyon" / "Mira moved to Oslo"."""
    shorter, longer = sorted((len(first), len(second)))
    if shorter < SAME_STATEMENT * longer:  # the overlap is at most the shorter set
        return False
    shared = len(first & second)
    union = shorter + longer - shared
    return bool(union) and shared / union >= SAME_STATEMENT


_SUFFIXES = ("ing", "ies", "ied", "ed", "es", "ly", "er", "s", "e", "y")


@lru_cache(maxsize=1 << 16)
def light_stem(word: str) -> str:
    """One common English suffix off ("moved", "move" -> "mov"; "painting" -> "paint"):
    enough to match a question's word in a turn without the index's full stemmer."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


class TermMatcher:
    """Finds which of a question's words a text holds, compared by light stems. Every
    surface form a stem can take (itself or itself plus one suffix, each checked to stem
    back) is listed once per question, so a text costs one tokenisation and one set
    intersection instead of a stem per word."""

    def __init__(self, terms: Sequence[str]) -> None:
        wanted: dict[str, list[str]] = {}
        for term in terms:
            wanted.setdefault(light_stem(term), []).append(term)
        self._stems = tuple(wanted)
        self._forms: dict[str, frozenset[str]] = {}
        for stem, named in wanted.items():
            for form in (stem, *(stem + suffix for suffix in _SUFFIXES)):
                if light_stem(form) == stem:
                    self._forms[form] = self._forms.get(form, frozenset()) | frozenset(named)

    def matched(self, text: str) -> frozenset[str]:
        lowered = text.lower()
        if not any(stem in lowered for stem in self._stems):  # every form begins with its stem
            return frozenset()
        present = self._forms.keys() & _WORD.findall(lowered)
        if not present:
            return frozenset()
        return frozenset().union(*(self._forms[form] for form in present))


def matched_terms(text: str, terms: Sequence[str]) -> frozenset[str]:
    """The question words a text contains, compared by their light stems."""
    return TermMatcher(terms).matched(text)


def feedback_terms(texts: Sequence[str], question_terms: Sequence[str], count: int,
                   excluded: frozenset[str] = frozenset()) -> list[str]:
    """RM3-style expansion: words weighted by their share of each top document and by the
    document's rank (1/rank), summed; the question's own words, function words, short
    words and ``excluded`` (e.g. speaker names, which match everywhere) are left out."""
    if count <= 0 or not texts:
        return []
    skip = set(question_terms) | excluded
    weight: dict[str, float] = {}
    for rank, text in enumerate(texts, start=1):
        words = [w for w in keywords(text) if len(w) >= FEEDBACK_MIN_LENGTH and not w.isdigit()]
        tokens = [w.lower() for w in _WORD.findall(text)]
        counts = {w: tokens.count(w) for w in words}
        total = sum(counts.values()) or 1
        for word, seen in counts.items():
            if word not in skip and word not in STOPWORDS:
                weight[word] = weight.get(word, 0.0) + seen / total / rank
    # Words in most feedback documents carry no information about this question.
    spread = {w: sum(w in t.lower() for t in texts) for w in weight}
    common = {w for w, n in spread.items() if len(texts) >= 4 and n > len(texts) * 0.6}
    ranked = sorted((w for w in weight if w not in common), key=lambda w: (-weight[w], w))
    return ranked[:count]


def session_coverage(term_hits: Mapping[str, Sequence[str | None]], depth: int) -> dict[str | None, float]:
    """A session as one document: for each question word, how many of the session's
    turns contain it (saturating), weighted by the word's rarity; summed over words. A
    session whose different turns cover different words of the question scores high even
    when no single turn holds them all. ``term_hits[w]`` lists the session of every
    turn containing ``w`` (up to ``depth`` of them)."""
    scores: dict[str | None, float] = {}
    for sessions in term_hits.values():
        if not sessions:
            continue
        rarity = math.log(1.0 + depth / len(sessions))
        per_session: dict[str | None, int] = {}
        for session in sessions:
            per_session[session] = per_session.get(session, 0) + 1
        for session, turns in per_session.items():
            scores[session] = scores.get(session, 0.0) + rarity * turns / (turns + 1.0)
    return scores
