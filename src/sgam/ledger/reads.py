"""The ledger's fact reads as every surface answers them: a key's point read, a set's
members, a key's timeline and bitemporal record, and the query of a tenant's assertions.

``Memory`` checks the arguments and calls these with checked values (instants in
microseconds, a checked purpose); here each read opens one scope of the ledger (deadlines
settled first), resolves the names it was given as they stood at ``known_at``, leaves out
what consent withholds, and turns the versions into public records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .._core.errors import ValidationError
from .._core.model import Assertion
from .._core.purpose import MEMBER, allowed, consent_uses, ledger_attribute, split_attribute
from .._core.rules import Version
from .._core.schema import Cardinality
from ..store import AttributeMeaning, Consents, Holding, QueryFilter, ReadAhead, Reader, SubjectMeaning
from .records import to_assertion, to_assertions
from .relations import consent_book, is_relation, named, visible_versions
from .schema_at import cardinality_at, schema_at
from .service import Ledger
from .sets import member_reads, member_versions


def point(
    ledger: Ledger, tenant: str, subject: str, attribute: str, moment: int, known: int | None, scope: str | None,
    *, sets: bool,
) -> Assertion | list[Assertion] | None:
    """A key's point read. A set has no versions under its own key, so only a read
    that finds nothing asks whether the attribute is one (from the schema cache on
    SQLite, a statement on PostgreSQL): the read of a value costs what it did."""

    def general(reader: Reader, meant: str = subject, name: str = attribute) -> Version | None:
        return reader.get(meant, name, moment, known)

    def scoped(reader: Reader, meant: str = subject, name: str = attribute) -> Version | None:
        return None if scope is None else reader.get(meant, ledger_attribute(name, scope), moment, known)

    timelines = (attribute,) if scope is None else (ledger_attribute(attribute, scope), attribute)
    ahead: list[ReadAhead] = [Consents(subject), SubjectMeaning(subject, known), AttributeMeaning(attribute, known)]
    ahead += [Holding(subject, timeline, moment, known) for timeline in timelines]
    with ledger.read(tenant, "get", ahead) as reader:
        consented = allowed(reader.consents(subject), scope)
        meant = reader.resolve_subject(subject, known)
        name = reader.resolve_attribute(attribute, known)  # an attribute renamed by then
        version = (scoped(reader, meant, name) or general(reader, meant, name)) if consented else None
        if version is None:
            if cardinality_at(reader, name, known) is Cardinality.MANY:
                if not sets:
                    raise ValidationError("attribute", attribute,
                                          "is a set (cardinality many): read its members with members()")
                found = member_versions(reader, meant, name, moment, known, scope) if consented else []
                return to_assertions(tenant, found)
            return None
        if version.value.startswith('"'):
            shown = visible_versions(reader, [version], scope, known)
            if not shown:
                return None  # a relation naming a subject whose consent is revoked
            version = shown[0]
    return to_assertion(tenant, version)


def members(
    ledger: Ledger, tenant: str, subject: str, attribute: str, moment: int, known: int | None, scope: str | None,
) -> list[Assertion]:
    """The members of the set ``subject.attribute`` holding at ``moment`` as known at
    ``known``, in the order of their values' JSON text (the attribute under its name
    then, were it renamed since)."""
    ahead = member_reads(subject, attribute, moment, known, scope)
    with ledger.read(tenant, "members", ahead=ahead) as reader:
        meant = reader.resolve_subject(subject, known)
        found = member_versions(reader, meant, attribute, moment, known, scope)
        if not found:  # nothing under the name given: it may have been renamed by then
            name = reader.resolve_attribute(attribute, known)
            if name != attribute:
                found = member_versions(reader, meant, name, moment, known, scope)
    # two members naming subjects merged since are one member
    distinct = {version.value: version for version in reversed(found)}
    return to_assertions(tenant, [distinct[value] for value in dict.fromkeys(v.value for v in found)])


def history(
    ledger: Ledger, tenant: str, subject: str, attribute: str, known: int | None, scope: str | None,
) -> list[Assertion]:
    """Every assertion of the key's timeline (the general one, or ``scope``'s) as the
    ledger stood at ``known``, by ``valid_from``; of a set, every member's."""

    def read(reader: Reader, s: str, a: str) -> list[Version]:
        meant = reader.resolve_subject(s, known)
        found = _history(reader, meant, a, known)
        if not found:  # nothing under the name given: it may have been renamed by then
            base, purpose = split_attribute(a)
            renamed = reader.resolve_attribute(base, known)
            if renamed != base:
                found = _history(reader, meant, ledger_attribute(renamed, purpose), known)
        return visible_versions(reader, found, scope, known)

    return _timeline(ledger, tenant, subject, attribute, scope, "history", read)


def versions(ledger: Ledger, tenant: str, subject: str, attribute: str, scope: str | None) -> list[Assertion]:
    """The full bitemporal record of a key's timeline; of a set, every member's, member
    by member. A relation's versions naming a subject whose consent is revoked are left
    out, as every read leaves them out."""

    def read(reader: Reader, s: str, a: str) -> list[Version]:
        meant = reader.resolve_subject(s)
        declared = reader.declared(split_attribute(a)[0])
        if declared is not None and declared.cardinality is Cardinality.MANY:
            members = reader.member_keys(meant, f"{a}{MEMBER}")
            found = [v for member in members for v in reader.versions(meant, member)]
        else:
            found = reader.versions(meant, a)
        return visible_versions(reader, found, scope)

    return _timeline(ledger, tenant, subject, attribute, scope, "versions", read)


def _timeline(
    ledger: Ledger, tenant: str, subject: str, attribute: str, scope: str | None, call: str,
    read: Callable[[Reader, str, str], list[Version]],
) -> list[Assertion]:
    with ledger.read(tenant, call) as reader:
        if not allowed(reader.consents(subject), scope):
            return []
        return [to_assertion(tenant, v) for v in read(reader, subject, ledger_attribute(attribute, scope))]


def _history(reader: Reader, subject: str, attribute: str, known: int | None) -> list[Version]:
    """A key's timeline as known at ``known``: a set's every member when the attribute
    held a set then (a cardinality change takes effect at its transaction time)."""
    if cardinality_at(reader, split_attribute(attribute)[0], known) is Cardinality.MANY:
        return reader.set_history(subject, f"{attribute}{MEMBER}", known)
    return reader.history(subject, attribute, known)


def query(
    ledger: Ledger, tenant: str, flt: QueryFilter, size: int,
) -> tuple[list[Assertion], tuple[str, str, int] | None]:
    """A page of at most ``size`` assertions ``flt`` selects (``flt.limit`` is one more,
    to know whether a page follows), the subject and attribute named as they stood at
    ``flt.known_at``; a set's attribute reads the range of its members' keys. With the
    page, where the next one starts (subject, attribute, valid_from), None on the last."""
    scope = flt.purpose
    with ledger.read(tenant, "query") as reader:
        if flt.subject is not None:
            flt = replace(flt, subject=reader.resolve_subject(flt.subject, flt.known_at))
        if flt.attribute is not None:
            name = reader.resolve_attribute(flt.attribute, flt.known_at)  # an old name: the attribute's
            many = cardinality_at(reader, name, flt.known_at) is Cardinality.MANY
            flt = replace(flt, attribute=name, many=many)
        book = consent_book(reader, consent_uses(scope))
        found_versions = reader.query(flt)
        revoked = book.revoked_subjects(scope)
        if revoked:  # a relation naming a subject whose consent is revoked is not returned
            known = flt.known_at  # relations as they stood then
            relations = {s.attribute for s in reader.attribute_schemas()
                         if is_relation(s if known is None else schema_at(reader, s.attribute, known))}
            hidden = {id(v) for v in found_versions
                      if split_attribute(v.attribute)[0] in relations and named(v) in revoked}
    last = found_versions[size - 1] if len(found_versions) > size else None
    following = None if last is None else (last.subject, last.attribute, last.valid_from)
    found = [to_assertion(tenant, v) for v in found_versions[:size]
             if book.allows(v.subject, scope) and (not revoked or id(v) not in hidden)]
    if scope is not None and flt.at is not None:
        scoped = {(a.subject, a.attribute) for a in found if a.purpose is not None}
        found = [a for a in found if a.purpose is not None or (a.subject, a.attribute) not in scoped]
    return found, following
