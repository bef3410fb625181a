"""Relations: attributes of value type ``subject``, whose values name other subjects.

A relation's value is stored as the normalised id it names, so "who names Cogs"
(``linked``) is one range of the index over (tenant, attribute, value), and a walk
outward (``reachable``) is a point read (or a set's member range) per subject and
attribute. Consent reaches relations: while consent for X is revoked, a value naming X
is not returned by a read of another subject, is not followed, and a write of it is
refused (in the write service).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from .._core.errors import ValidationError
from .._core.purpose import (
    MEMBER,
    ConsentBook,
    ConsentRow,
    allowed,
    ledger_attribute,
    members_prefix,
    split_attribute,
)
from .._core.rules import Same, Version
from .._core.schema import AttributeSchema, Cardinality, ValueType
from .._core.values import canonical_json, check_name, load_value
from ..store import LedgerReads, LifecycleReads, SubjectReads, WriteTransaction
from .schema_at import schema_at

MAX_DEPTH = 10
MAX_FAN_OUT = 10_000
DEFAULT_FAN_OUT = 1000
MAX_ATTRIBUTES = 32
"""Distinct relations one walk may follow: each costs a read of its schema and a read
per step (4,000 repeats of one name cost 8.5 s a request on PostgreSQL)."""
MAX_WALK_READS = 2_000
"""Reads one walk may make after its schemas (one per relation per step, one per name it
resolves, each answered from an index): the bound on its work whatever the graph.
A walk that reaches it stops with ``cut``, like one that reaches ``fan_out``."""


class RelationReads(LedgerReads, LifecycleReads, SubjectReads, Protocol):
    """What relations read: versions, schemas, consent and what names mean."""


def is_relation(schema: AttributeSchema | None) -> bool:
    return schema is not None and schema.value_type is ValueType.SUBJECT


def relation_schema(
    reader: RelationReads, attribute: str, field: str, known_at: int | None = None,
) -> AttributeSchema:
    """The schema of the attribute ``attribute`` names at ``known_at`` (renames followed),
    as it stood then; a ``ValidationError`` naming ``field`` unless it was a relation."""
    now = reader.declared(attribute)  # a name never renamed means itself: no statement to resolve it
    name = attribute if now is not None and now.renamed_to is None else reader.resolve_attribute(attribute, known_at)
    declared = now if name == attribute and known_at is None else schema_at(reader, name, known_at)
    if not is_relation(declared):
        raise ValidationError(field, attribute, "must be an attribute declared with type subject (a relation)")
    assert declared is not None
    return declared


def same_subject(resolve: Callable[[str], str]) -> Same:
    """How a one-valued relation's values compare: by the subject each names through
    ``resolve`` (aliases followed), not by spelling; ``"ännä"`` is ``"omar"`` while it
    is an alias of it."""
    def same(stored: str, value: str) -> bool:
        if not (stored.startswith('"') and value.startswith('"')):
            return False
        one, other = load_value(stored), load_value(value)
        return isinstance(one, str) and isinstance(other, str) and resolve(one) == resolve(other)

    return same


def value_comparison(txn: WriteTransaction, attribute: str) -> Same | None:
    """How the values of a key of ``attribute`` (a ledger attribute) compare when not by
    text: a one-valued relation's by the subject each names now. A set's members are
    keys of their own, named by the value, and compare by text."""
    if MEMBER in attribute:
        return None
    declared = txn.attribute_schema(split_attribute(attribute)[0])
    if declared is None or declared.value_type is not ValueType.SUBJECT:
        return None
    return same_subject(txn.resolve_subject)


def check_depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValidationError("depth", depth, f"must be an integer from 1 to {MAX_DEPTH}")
    return depth


def check_attributes(attributes: object) -> list[str]:
    """The relation names to follow, each once in first-given order; at most ``MAX_ATTRIBUTES``."""
    if isinstance(attributes, str) or not isinstance(attributes, Sequence) or not attributes:
        raise ValidationError("attributes", attributes, "must be a non-empty list of relation attributes")
    names = list(dict.fromkeys(check_name(a, f"attributes[{i}]") for i, a in enumerate(attributes)))
    if len(names) > MAX_ATTRIBUTES:
        raise ValidationError("attributes", f"<{len(names)} distinct attributes>",
                              f"at most {MAX_ATTRIBUTES} distinct relation attributes per walk")
    return names


def check_fan_out(fan_out: object) -> int:
    if isinstance(fan_out, bool) or not isinstance(fan_out, int) or not 1 <= fan_out <= MAX_FAN_OUT:
        raise ValidationError("fan_out", fan_out, f"must be an integer from 1 to {MAX_FAN_OUT}")
    return fan_out


def named(version: Version) -> str:
    """The subject id a relation's version names."""
    value = load_value(version.value)
    assert isinstance(value, str)
    return value


def visible_versions(
    reader: RelationReads, versions: Sequence[Version], purpose: str | None, known_at: int | None = None,
) -> list[Version]:
    """``versions`` of one attribute less those naming a subject whose consent (for
    ``purpose``) is revoked, each naming the subject its value meant at ``known_at``
    (aliases followed): one schema lookup, and for a relation one consent lookup for
    every subject its values name (not one per value: a set's members are many)."""
    if not versions or not is_relation(schema_at(reader, split_attribute(versions[0].attribute)[0], known_at)):
        return list(versions)
    names = [named(v) for v in versions]
    book = ConsentBook(reader.consents_among(names))
    shown: list[Version] = []
    for version, name in zip(versions, names, strict=True):
        if not book.allows(name, purpose):
            continue
        meant = reader.resolve_subject(name, known_at)
        shown.append(version if meant == name else replace(version, value=canonical_json(meant)))
    return shown


def consent_book(reader: RelationReads, uses: Sequence[str] | None) -> ConsentBook:
    """The statements of subjects with a revocation among ``uses``, each filed under
    every name its subject has now: a statement about any name applies to the subject."""
    rows: list[ConsentRow] = []
    for row in reader.revoking_consents(uses):
        meant = reader.resolve_subject(row.subject)
        rows += [replace(row, subject=name) for name in (meant, *reader.names_meaning(meant))]
    return ConsentBook(rows)


def relation_key(schema: AttributeSchema, value: str, purpose: str | None = None) -> str:
    """The ledger attribute under which relation ``schema`` holds ``value`` (canonical
    JSON) on the timeline of ``purpose``: the attribute's timeline, or for a set the
    member's key (what ``assertions_by_value`` is searched by)."""
    if schema.cardinality is Cardinality.MANY:
        return f"{members_prefix(schema.attribute, purpose)}{value}"
    return ledger_attribute(schema.attribute, purpose)


def linked(
    reader: RelationReads, schema: AttributeSchema, to: str, at: int, known_at: int | None, limit: int,
) -> list[str]:
    """The subjects whose relation ``schema`` holds a value naming ``to`` at ``at`` as known
    at ``known_at`` (nothing when consent for ``to`` is revoked, and none whose consent is;
    their consent read in one statement)."""
    if not allowed(reader.consents(to), None):
        return []
    meant = reader.resolve_subject(to, known_at)
    found: list[Version] = []
    for name in (meant, *reader.names_meaning(meant, known_at)):  # a value may name any of them
        value = canonical_json(name)
        found += reader.holders(relation_key(schema, value), value, at, known_at, limit)
    subjects = sorted(dict.fromkeys(v.subject for v in found))
    book = ConsentBook(reader.consents_among(subjects))  # one statement, not one per subject
    return [s for s in subjects if book.allows(s, None)][:limit]


def reachable(
    reader: RelationReads, start: str, schemas: Sequence[AttributeSchema], depth: int, at: int,
    known_at: int | None, fan_out: int,
) -> tuple[list[str], bool]:
    """Breadth first from ``start`` along ``schemas``, one to ``depth`` steps, every step at
    (``at``, ``known_at``); ``start`` is listed only if a path leads back to it. Stops
    with ``cut`` once ``fan_out`` subjects are listed and another would be, or once the
    walk has made ``MAX_WALK_READS`` reads."""
    book = consent_book(reader, ("",))
    start = reader.resolve_subject(start, known_at)
    if not book.allows(start, None):
        return [], False
    reached: dict[str, None] = {}
    expanded = {start}
    frontier = [start]
    walk = _Walk(reader, known_at)
    for _ in range(depth):
        following: list[str] = []
        targets = walk.targets(frontier, schemas, at)
        if targets is None:
            return list(reached), True
        for target in targets:
            if target in reached or not book.allows(target, None):
                continue
            if len(reached) >= fan_out:
                return list(reached), True
            reached[target] = None
            if target not in expanded:
                expanded.add(target)
                following.append(target)
        frontier = following
        if not frontier:
            break
    return list(reached), False


class _Walk:
    """One walk's reads, counted against ``MAX_WALK_READS``, each name resolved once."""

    def __init__(self, reader: RelationReads, known_at: int | None) -> None:
        self.reader = reader
        self.known_at = known_at
        self.reads = 0
        self.meanings: dict[str, str] = {}

    def _spend(self) -> bool:
        if self.reads >= MAX_WALK_READS:
            return False
        self.reads += 1
        return True

    def targets(self, frontier: Sequence[str], schemas: Sequence[AttributeSchema], at: int) -> list[str] | None:
        """The subjects the frontier's relations name, subject by subject in frontier
        order: one statement per relation for the whole frontier, not one per subject.
        None once the walk is out of reads."""
        by_subject: dict[str, list[str]] = {subject: [] for subject in frontier}
        for schema in schemas:
            if not self._spend():
                return None
            many = schema.cardinality is Cardinality.MANY
            attribute = members_prefix(schema.attribute, None) if many else schema.attribute
            for version in self.reader.holding(frontier, attribute, at, self.known_at, members=many):
                by_subject[version.subject].append(named(version))
        found: list[str] = []
        for subject in frontier:
            for target in by_subject[subject]:
                meant = self.meanings.get(target)
                if meant is None:
                    if not self._spend():
                        return None
                    meant = self.meanings[target] = self.reader.resolve_subject(target, self.known_at)
                found.append(meant)
        return found
