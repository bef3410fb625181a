"""What evidence a caller may see, after ranking.

Consent: an episode is about a subject when it sourced an operation of the subject or
names it (as a word of its text or its speaker); nothing about a subject whose consent
is revoked for the purpose is returned. Lineage: an episode and the episodes derived from
it (summaries, compactions, notes) are one source, so only the best-ranked of them is
returned: a summary never corroborates the message it summarises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..store import Reader
from .engine import EvidenceHit

MAX_LINEAGE_DEPTH = 64


def in_scope(reader: Reader, hits: list[EvidenceHit], revoked: set[str]) -> list[EvidenceHit]:
    """``hits`` (best first) without those about ``revoked`` subjects, one per lineage."""
    if not hits:
        return hits
    ids = [hit.episode_id for hit in hits]
    if revoked:
        sourced: dict[str, set[str]] = {}
        for episode_id, subject in reader.sourced_subjects(ids):
            sourced.setdefault(episode_id, set()).add(subject)
        hits = [hit for hit in hits
                if not (sourced.get(hit.episode_id, set()) & revoked) and not names_any(hit, revoked)]
    roots = lineage_roots(reader, [hit.episode_id for hit in hits])
    kept: list[EvidenceHit] = []
    seen: set[str] = set()
    for hit in hits:
        mine = roots[hit.episode_id]
        if mine & seen:
            continue
        seen |= mine
        kept.append(hit)
    return kept


def names_any(hit: EvidenceHit, subjects: Iterable[str]) -> bool:
    return mentions(hit.speaker, hit.text, subjects)


def mentions(speaker: str | None, text: str, subjects: Iterable[str]) -> bool:
    """Whether a subject is the speaker or a word of the text (case-insensitive)."""
    folded = f"{speaker or ''}\n{text}".casefold()
    return any(re.search(rf"(?<!\w){re.escape(subject.casefold())}(?!\w)", folded) for subject in subjects)


def about_revoked(reader: Reader, episodes: Sequence[tuple[str, str | None, str]], revoked: set[str]) -> set[str]:
    """The ids among ``episodes`` (id, speaker, text) that are about a ``revoked`` subject:
    they sourced an operation of it, or name it. Episode reads leave them out as search does."""
    if not revoked or not episodes:
        return set()
    sourced: dict[str, set[str]] = {}
    for episode_id, subject in reader.sourced_subjects([e[0] for e in episodes]):
        sourced.setdefault(episode_id, set()).add(subject)
    return {episode_id for episode_id, speaker, text in episodes
            if sourced.get(episode_id, set()) & revoked or mentions(speaker, text, revoked)}


def lineage_roots(reader: Reader, episode_ids: list[str]) -> dict[str, set[str]]:
    """Each episode's original sources (itself when it was made from none)."""
    parents: dict[str, set[str]] = {}
    frontier = list(dict.fromkeys(episode_ids))
    for _ in range(MAX_LINEAGE_DEPTH):
        if not frontier:
            break
        edges = reader.derivations(frontier)
        for derived, source in edges:
            parents.setdefault(derived, set()).add(source)
        frontier = sorted({source for _, source in edges} - parents.keys())
    roots: dict[str, set[str]] = {}

    def root_of(episode_id: str, depth: int = 0) -> set[str]:
        if episode_id not in roots:
            above = parents.get(episode_id)
            roots[episode_id] = ({episode_id} if not above or depth >= MAX_LINEAGE_DEPTH
                                 else set().union(*(root_of(p, depth + 1) for p in above)))
        return roots[episode_id]

    return {episode_id: root_of(episode_id) for episode_id in episode_ids}
