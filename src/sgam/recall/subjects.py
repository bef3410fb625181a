"""Which subjects a question names: the one place recall turns a question's words into
subject ids, so that every part of it that starts from a subject (its sets, its
relations in both directions) finds the same ones, and resolving a name (an alias, as
the ledger stood at ``known_at``) is done here once for all of them.

A subject is named by its id as sgam matches ids ("Team 7", "team  7" and "TEAM 7" are
one): each run of one to ``MAX_NAME_WORDS`` consecutive words of the question, with the
punctuation around it and a possessive "'s" taken off, is a candidate, and the
candidates that are subjects of the tenant (the subject of a key, or the value of a
relation: a supplier need have no facts of its own) are named. Where named runs
overlap, the longest wins: "Mira Jansen" names ``mira jansen``, not also ``mira``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._core.schema import AttributeSchema
from .._core.values import MAX_NAME_LENGTH, canonical_json, load_value, normalise_subject
from ..ledger.relations import relation_key
from ..store import SubjectReads
from .vocabulary import names_any, tokens

MAX_NAME_WORDS = 4
MAX_WORDS = 120
"""Words of a question looked at (a question is at most 4,000 characters)."""
MAX_NAMED = 5
EDGES = ".,;:!?\"'()[]{}<>«»“”‘’"
POSSESSIVES = ("'s", "’s")


class NameReads(SubjectReads, Protocol):
    """What naming reads: which candidate ids are subjects, which a relation names."""


def candidate_spans(question: str) -> list[tuple[int, int, str]]:
    """(first word, word after the last, normalised id) of every run of words that could
    be a subject's name, each run as written and without its outer punctuation."""
    words = question.split()[:MAX_WORDS]
    bare = [_bare(word) for word in words]
    spans: dict[tuple[int, int, str], None] = {}
    for start in range(len(words)):
        for end in range(start + 1, min(start + MAX_NAME_WORDS, len(words)) + 1):
            for form in (" ".join(words[start:end]), " ".join(bare[start:end])):
                name = normalise_subject(form)
                if name and len(name) <= MAX_NAME_LENGTH:
                    spans.setdefault((start, end, name), None)
    return list(spans)


def named_subjects(
    reader: NameReads, question: str, relations: Sequence[AttributeSchema], purpose: str | None = None,
) -> list[str]:
    """The subject ids ``question`` names, in the order it names them (at most
    ``MAX_NAMED``). ``relations``: the tenant's subject-typed attributes, whose values
    name subjects too; ``purpose``: the timeline read besides the general one."""
    spans = candidate_spans(question)
    names = list(dict.fromkeys(name for _, _, name in spans))
    aliases = reader.resolve_subjects(names) if names else {}  # "MJ" names the subject it is an alias of
    known = (reader.subjects_among(names) if names else set()) | set(aliases)
    rest = [name for name in names if name not in known]
    if rest and relations:
        scopes = [None] if purpose is None else [None, purpose]
        pairs = [(relation_key(schema, value, scope), value) for schema in relations for scope in scopes
                 for value in map(canonical_json, rest)]
        known |= {str(load_value(value)) for value in reader.values_named(pairs)}
    chosen: list[tuple[int, int, str]] = []
    for start, end, name in sorted((s for s in spans if s[2] in known), key=lambda s: (s[0] - s[1], s[0])):
        if all(end <= first or start >= last for first, last, _ in chosen):
            chosen.append((start, end, name))
    ordered = [aliases.get(name, name) for _, _, name in sorted(chosen)]
    return list(dict.fromkeys(ordered))[:MAX_NAMED]


def words_beyond(terms: Sequence[str], subject: str) -> list[str]:
    """The question's words that are not part of the name of ``subject`` (compared as
    subject ids are, so "Straße" is part of ``strasse``): the words that say what the
    question asks about it."""
    own = tokens(subject)
    return [term for term in terms if not names_any([normalise_subject(term)], own)]


def _bare(word: str) -> str:
    word = word.strip(EDGES)
    for mark in POSSESSIVES:
        if word.lower().endswith(mark):
            return word[: -len(mark)]
    return word
