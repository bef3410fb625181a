"""``recall``: exact state from the ledger first, then evidence, packed into a budget."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from .._core.errors import ValidationError
from .._core.purpose import MEMBER, ConsentBook, consent_uses, ledger_attribute, split_attribute
from .._core.rules import Version
from .._core.schema import ValueType
from .._core.time import from_micros
from .._core.values import canonical_json, load_value
from ..search import SearchConfig, SearchFilter, SearchService, check_question, keywords
from ..search.scope import in_scope
from ..store import (
    AttributeSchemas,
    EmbedderState,
    EpisodeReads,
    LedgerReads,
    MatchingKeys,
    QueryFilter,
    ReadAhead,
    Reader,
    RevokingConsents,
    SubjectReads,
)
from ._model import Citation, RecallItem, RecallResult
from .render import frame_tokens, pack
from .shape import set_versions, shape_versions
from .sources import sources_first
from .subjects import named_subjects, words_beyond
from .vocabulary import asks_about, attribute_vocabulary, names_any, tokens

if TYPE_CHECKING:
    from ..documents import DocumentHit

DocumentSearch = Callable[[Reader, str, float, set[str]], Sequence["DocumentHit"]]
"""(the recall's read, question, vector floor, revoked subjects) -> document passages
naming none of them, best first."""

MAX_BUDGET = 1_000_000
MAX_KEYS = 10
KEY_CANDIDATES = 100
SIMILAR_KEYS = 3
SIMILARITY_FLOOR = 0.5  # cosine; below it a fact is a guess, not something the question names
SUPERSEDED_PER_KEY = 2
SHAPE_SCORE = 0.9  # a member or a relation the question's subject has: exact state, after the keys it names
EVIDENCE_LIMIT = 30


class Facts(EpisodeReads, LedgerReads, SubjectReads, Protocol):
    """What recall reads of a fact: its versions and the episode that sourced it."""


def min_budget() -> int:
    """The smallest budget: the fence and headings alone, plus one token."""
    return frame_tokens() + 1


def check_budget(budget: object) -> int:
    low = min_budget()
    if isinstance(budget, bool) or not isinstance(budget, int) or not low <= budget <= MAX_BUDGET:
        raise ValidationError("budget", budget, f"must be an integer from {low} to {MAX_BUDGET} tokens")
    return budget


def recall(
    search: SearchService, tenant: str, question: str, *, at: int, budget: int, config: SearchConfig,
    known_at: int | None = None, documents: DocumentSearch | None = None, purpose: str | None = None,
    read: Callable[[Sequence[ReadAhead]], AbstractContextManager[Reader]] | None = None,
    document_reads: Callable[[str], Sequence[ReadAhead]] | None = None,
) -> RecallResult:
    """Reads only: facts as the ledger stood at ``known_at`` (default: now) and episodes
    recorded by then, so a recall with ``known_at`` can be reproduced later. ``read``
    opens the scope everything is read in (``Ledger.read`` settles deadlines first; by
    default the backend's): facts, the consent book, the evidence and the document
    passages alike, one scope and so one snapshot on one pooled connection (a read nested
    in it would take a second, and concurrent recalls would starve the pool). The
    question is embedded before it opens. ``read`` is given the reads the recall will
    make first and whose statements depend on nothing read before them (``ahead``):
    a backend may send them with its first statement (``Reader.prefetch``);
    ``document_reads``: those ``documents`` makes first for a question."""
    question = check_question(question)
    budget = check_budget(budget)
    terms = keywords(question)
    search.embed_question(question, tenant=tenant)
    flt = SearchFilter(until=at, known_at=known_at)
    ahead: list[ReadAhead] = [
        EmbedderState(), AttributeSchemas(), RevokingConsents(consent_uses(purpose)),
        MatchingKeys(tuple(terms), at, KEY_CANDIDATES, known_at), *search.first_reads(tenant, question, config, flt),
    ]
    if documents is not None and known_at is None and document_reads is not None:
        ahead += document_reads(question)
    with _opened(search, tenant, read, ahead) as reader:
        schemas = reader.attribute_schemas()
        sensitive = {schema.attribute for schema in schemas if schema.sensitive}
        descriptions = {schema.attribute: schema.description for schema in schemas if schema.description}
        keys = best_keys(search.index.matching_keys(reader, terms, at, KEY_CANDIDATES, known_at), terms,
                         descriptions)
        relations = [schema for schema in schemas if schema.value_type is ValueType.SUBJECT]
        subjects = named_subjects(reader, question, relations, purpose)
        keys += _subject_keys(reader, subjects, keys, terms, descriptions, at, known_at)
        named = bool(keys)
        if not keys:  # the question names no key: fall back to the facts closest in meaning
            keys = search.similar_keys(reader, question, at, SIMILAR_KEYS, SIMILARITY_FLOOR, known_at)
        keys = [key for key in keys
                if split_attribute(key[1])[0] not in sensitive or (named and _names_attribute(key, terms))]
        book = ConsentBook(reader.revoking_consents(consent_uses(purpose)))
        sets = list(dict.fromkeys((subject, split_attribute(stored)[0])
                                  for subject, stored in keys if MEMBER in stored))
        keys = timeline_keys(reader, [key for key in keys if MEMBER not in key[1]], purpose, at, known_at, book)
        facts = [item for subject, attribute in keys
                 for item in _key_items(reader, subject, attribute, at, known_at)]
        shape = (shape_versions(reader, subjects, schemas, terms, at=at, known_at=known_at, purpose=purpose,
                                book=book)
                 + set_versions(reader, sets, at=at, known_at=known_at, purpose=purpose, book=book))
        facts += _shape_items(reader, shape, facts)
        facts = _named(facts, reader.display_names([item.subject for item in facts if item.subject]))
        revoked = book.revoked_subjects(purpose)
        if revoked:  # a relation's value naming a subject whose consent is revoked is not said
            naming = {schema.attribute for schema in relations}
            facts = [item for item in facts if item.attribute not in naming or item.value not in revoked]
        ranked = search.ranked(reader, question, config=config, flt=flt, limit=EVIDENCE_LIMIT, now=at)
        sources = [item.citation.episode_id for item in sorted(facts, key=lambda item: item.superseded)
                   if item.citation.episode_id is not None]
        hits = in_scope(reader, ranked, revoked)[:EVIDENCE_LIMIT]
        if sources:  # the turns the facts shown were read from lead the evidence
            hits = sources_first(reader, hits, sources, at=at, known_at=known_at, revoked=revoked,
                                 limit=EVIDENCE_LIMIT)
        # Documents keep revisions but are indexed only as they are now, so a recall at a past
        # known_at leaves them out rather than quote text that was not recorded then.
        found = [] if documents is None or known_at is not None else documents(reader, question, SIMILARITY_FLOOR,
                                                                                 revoked)
    evidence = [
        RecallItem("evidence", hit.text, Citation(hit.episode_id, hit.at, hit.speaker), hit.score,
                   session=hit.session)
        for hit in hits
    ]
    passages = [
        RecallItem("document", hit.text, Citation(None, None, None, hit.path, hit.revision,
                                                  (hit.start_line, hit.end_line)), hit.score)
        for hit in found]
    ordered = ([item for item in facts if not item.superseded] + [i for i in facts if i.superseded] + passages
               + evidence)
    kept, text, tokens = pack(ordered, budget)
    return RecallResult(question, kept, text, tokens, budget, len(ordered) - len(kept))


@contextmanager
def _opened(
    search: SearchService, tenant: str,
    read: Callable[[Sequence[ReadAhead]], AbstractContextManager[Reader]] | None,
    ahead: Sequence[ReadAhead],
) -> Iterator[Reader]:
    """The recall's one read: ``read``'s, or the backend's, told what comes first."""
    if read is not None:
        with read(ahead) as reader:
            yield reader
        return
    with search.backend.read(tenant) as reader:
        reader.prefetch(ahead)
        yield reader


def _subject_keys(
    reader: Reader, subjects: list[str], keys: list[tuple[str, str]], terms: list[str],
    descriptions: Mapping[str, str], at: int, known_at: int | None,
) -> list[tuple[str, str]]:
    """The one-valued keys, holding at ``at``, of the named ``subjects`` that no key the
    index matched belongs to, where the question asks about them: a name the index's words
    miss (``Straße`` is the id ``strasse``) still reaches its subject's facts."""
    covered = {subject for subject, _ in keys}
    found: list[tuple[str, str]] = []
    for subject in subjects:
        if subject in covered:
            continue
        beyond = words_beyond(terms, subject)
        for version in reader.query(QueryFilter(subject=subject, at=at, known_at=known_at, limit=KEY_CANDIDATES)):
            attribute = version.attribute
            if MEMBER in attribute or (subject, attribute) in found:
                continue
            vocabulary = attribute_vocabulary(attribute, descriptions.get(attribute))
            if not beyond or asks_about(beyond, attribute, vocabulary):
                found.append((subject, attribute))
    return found[:MAX_KEYS]


def _shape_items(reader: Facts, shape: list[Version], shown: list[RecallItem]) -> list[RecallItem]:
    """The sets' members and the relations as current facts, after the keys' current
    facts and before anything superseded; each version once."""
    seen = {(item.subject, item.attribute, item.valid_from, canonical_json(item.value)) for item in shown}
    items: list[RecallItem] = []
    for version in shape:
        item = _fact(reader, version, superseded=False, score=SHAPE_SCORE)
        key = (item.subject, item.attribute, item.valid_from, version.value)
        if key not in seen:
            seen.add(key)
            items.append(item)
    return items


def _names_attribute(key: tuple[str, str], terms: list[str]) -> bool:
    """The question names the attribute itself (what a sensitive attribute needs)."""
    return names_any(terms, tokens(key[1]))


def best_keys(
    keys: list[tuple[str, str]], terms: list[str], descriptions: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """Keep the keys that name the most question words. Index ranks (BM25, ts_rank) weigh
    words by rarity among *rows*, so a subject alone can outrank subject + attribute.

    A key must also be what the question asks about: when the question has words beyond
    the subject's name ("where does Mira *live*"), those words must be in the attribute's
    vocabulary (its name, its declared description, the words it is commonly asked with:
    "live" asks about ``city``), so ``mira.salary`` is not relevant; a question naming
    only the subject gets its keys."""
    described = descriptions or {}

    def asked(key: tuple[str, str], words: list[str]) -> bool:
        attribute = split_attribute(key[1])[0]
        return asks_about(words, key[1], attribute_vocabulary(attribute, described.get(attribute)))

    def coverage(key: tuple[str, str]) -> int:
        subject = tokens(key[0])
        return sum(names_any([term], subject) or asked(key, [term]) for term in terms)

    def relevant(key: tuple[str, str]) -> bool:
        subject = tokens(key[0])
        beyond = [t for t in terms if not names_any([t], subject)]
        return not beyond or asked(key, beyond)

    scored = [(coverage(key), index, key) for index, key in enumerate(keys) if relevant(key)]
    best = max((score for score, _, _ in scored), default=0)
    return [key for score, _, key in sorted(scored, key=lambda x: (-x[0], x[1])) if score == best > 0][:MAX_KEYS]


def timeline_keys(
    reader: Reader, keys: list[tuple[str, str]], purpose: str | None, at: int, known_at: int | None,
    book: ConsentBook,
) -> list[tuple[str, str]]:
    """The ledger keys to read for ``purpose``: a purpose timeline where it holds at
    ``at``, else the general one; other purposes' timelines never; no subject whose
    consent for the purpose is revoked (``book``: the consent statements for it)."""
    chosen: dict[tuple[str, str], None] = {}
    for subject, stored in keys:
        attribute, scope = split_attribute(stored)
        if (scope is not None and scope != purpose) or not book.allows(subject, purpose):
            continue
        scoped = ledger_attribute(attribute, purpose)
        holds = purpose is not None and reader.get(subject, scoped, at, known_at) is not None
        chosen.setdefault((subject, scoped if holds else attribute), None)
    return list(chosen)


def _key_items(reader: Facts, subject: str, attribute: str, at: int, known_at: int | None) -> list[RecallItem]:
    """The version holding at ``at``, the few it replaced in valid time, and the value a
    correction replaced (if any), the latter marked superseded; all as of ``known_at``."""
    history = [v for v in reader.history(subject, attribute, known_at) if v.valid_from <= at]
    if not history or not history[-1].holds_at(at):
        return []
    current, earlier = history[-1], history[-1 - SUPERSEDED_PER_KEY:-1]
    retired_by_then = [
        v for v in reader.versions(subject, attribute)
        if v.recorded_to is not None and (known_at is None or v.recorded_to <= known_at)
    ]
    corrected = [v for v in retired_by_then if v.valid_from == current.valid_from and v.value != current.value]
    items = [_fact(reader, current, superseded=False, score=1.0)]
    items += [_fact(reader, v, superseded=True, score=0.5) for v in reversed(earlier)]
    items += [_fact(reader, v, superseded=True, score=0.4) for v in corrected[-1:]]
    return items


def _named(facts: list[RecallItem], names: dict[str, str]) -> list[RecallItem]:
    """Facts with their subject's display name where it differs from the id."""
    return [item if item.subject is None or names.get(item.subject, item.subject) == item.subject
            else replace(item, subject_name=names[item.subject]) for item in facts]


def _fact(reader: Facts, version: Version, *, superseded: bool, score: float) -> RecallItem:
    episode = reader.episode(version.source)
    value = load_value(version.value)
    attribute, _ = split_attribute(version.attribute)
    return RecallItem(
        "fact", f"{version.subject}.{attribute} = {version.value}",
        Citation(version.source, None if episode is None else from_micros(episode.occurred_at),
                 None if episode is None else episode.speaker),
        score, subject=version.subject, attribute=attribute, value=value,
        valid_from=from_micros(version.valid_from),
        valid_to=None if version.valid_to is None else from_micros(version.valid_to),
        superseded=superseded,
    )
