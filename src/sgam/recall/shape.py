"""Sets and relations as exact state in recall: for each subject the question names, the
members of its sets, the subjects its relations name, and the subjects whose relations
name it ("who else buys from Cogs?"), all holding at the question's instant as the
ledger stood at ``known_at``. They are versions of the ledger like any fact, cited to
the episodes that sourced them.

A question that asks about more than the subject ("which *suppliers* does Acme have?")
gets the attributes it asks about (their names, descriptions and the words they are
asked with, as for keys; for a set, the words asking for a group's members too: "who is
in team Atlas?"); one that only names the subject gets all of its shape. A
sensitive attribute needs its own name in the question, as everywhere in recall.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core.purpose import ConsentBook, ledger_attribute, members_prefix
from .._core.rules import Version
from .._core.schema import AttributeSchema, Cardinality, ValueType
from .._core.values import canonical_json
from ..ledger.relations import RelationReads, named, relation_key
from ..ledger.sets import member_versions
from .subjects import words_beyond
from .vocabulary import asks_about, attribute_vocabulary, names_any, tokens

MEMBERS_SHOWN = 50
"""Members of one set a recall reads at most (the budget keeps fewer still)."""
LINKED_SHOWN = 50
"""Subjects naming one subject through one relation a recall reads at most."""


def is_shaped(schema: AttributeSchema) -> bool:
    """A set or a relation: state that key search alone does not bring."""
    return schema.cardinality is Cardinality.MANY or schema.value_type is ValueType.SUBJECT


def shape_versions(
    reader: RelationReads, subjects: Sequence[str], schemas: Sequence[AttributeSchema], terms: list[str], *,
    at: int, known_at: int | None, purpose: str | None, book: ConsentBook,
) -> list[Version]:
    """The versions holding at ``at`` of the sets and relations of ``subjects`` that the
    question's ``terms`` ask about, outward then inward, subject by subject; none of a
    subject whose consent (for ``purpose``) is revoked (``book``: the statements that
    can decide it), none naming one. Outward, one statement per attribute for every
    subject at once (two with a purpose); inward, one range per subject and relation."""
    consented = [subject for subject in subjects if book.allows(subject, purpose)]
    beyond = {subject: words_beyond(terms, subject) for subject in consented}
    outward: dict[str, list[Version]] = {subject: [] for subject in consented}
    inward: dict[str, list[Version]] = {subject: [] for subject in consented}
    for schema in (schema for schema in schemas if is_shaped(schema)):
        asked = [subject for subject in consented if _asked(schema, terms, beyond[subject])]
        if not asked:
            continue
        for subject, versions in _holding(reader, asked, schema, at, known_at, purpose).items():
            outward[subject] += [version for version in versions
                                 if schema.value_type is not ValueType.SUBJECT or book.allows(named(version), purpose)]
        if schema.value_type is ValueType.SUBJECT:
            for subject in asked:
                value = canonical_json(subject)
                inward[subject] += [version for version in reader.holders(relation_key(schema, value), value, at,
                                                                          known_at, LINKED_SHOWN)
                                    if book.allows(version.subject, purpose)]
    return [version for subject in consented for version in (*outward[subject], *inward[subject])]


def set_versions(
    reader: RelationReads, sets: Sequence[tuple[str, str]], *, at: int, known_at: int | None, purpose: str | None,
    book: ConsentBook,
) -> list[Version]:
    """The members holding of each (subject, attribute) set (a key search that matched one
    of its members brings the whole set)."""
    found: list[Version] = []
    for subject, attribute in sets:
        if book.allows(subject, purpose):
            found += member_versions(reader, subject, attribute, at, known_at, purpose)[:MEMBERS_SHOWN]
    return found


def _asked(schema: AttributeSchema, terms: list[str], beyond: list[str]) -> bool:
    own = tokens(schema.attribute)
    if schema.sensitive:
        return names_any(terms, own)
    many = schema.cardinality is Cardinality.MANY
    return not beyond or asks_about(beyond, schema.attribute,
                                    attribute_vocabulary(schema.attribute, schema.description, many=many))


def _holding(
    reader: RelationReads, subjects: list[str], schema: AttributeSchema, at: int, known_at: int | None,
    purpose: str | None,
) -> dict[str, list[Version]]:
    """Per subject, what ``schema`` holds for it at ``at``: a set's members (at most
    ``MEMBERS_SHOWN``), or the relation's value; the purpose's timeline where it holds
    anything for the subject, else the general one (as ``members`` and ``get`` read)."""
    many = schema.cardinality is Cardinality.MANY

    def read(scope: str | None) -> dict[str, list[Version]]:
        attribute = members_prefix(schema.attribute, scope) if many else ledger_attribute(schema.attribute, scope)
        found: dict[str, list[Version]] = {}
        for version in reader.holding(subjects, attribute, at, known_at, members=many):
            found.setdefault(version.subject, []).append(version)
        return found

    general = read(None)
    scoped = {} if purpose is None else read(purpose)
    return {subject: (scoped.get(subject) or general.get(subject) or [])[:MEMBERS_SHOWN] for subject in subjects}
