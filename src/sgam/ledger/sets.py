"""A set's members as every read answers them (``members``, ``sgam get`` of a set, the
query of one, recall): the purpose's members where any hold, else the general
timeline's; nothing while consent for the subject is revoked; no value naming a subject
whose consent is."""

from __future__ import annotations

from .._core.purpose import allowed, members_prefix
from .._core.rules import Version
from ..store import Consents, Declared, Members, ReadAhead
from .relations import RelationReads, visible_versions


def member_versions(
    reader: RelationReads, subject: str, attribute: str, at: int, known_at: int | None, purpose: str | None,
) -> list[Version]:
    """The members of ``subject.attribute`` holding at ``at`` as known at ``known_at``, in
    the order of their values' JSON text."""
    if not allowed(reader.consents(subject), purpose):
        return []
    found = [] if purpose is None else reader.members(subject, members_prefix(attribute, purpose), at, known_at)
    if not found:
        found = reader.members(subject, members_prefix(attribute, None), at, known_at)
    return visible_versions(reader, found, purpose, known_at)


def member_reads(
    subject: str, attribute: str, at: int, known_at: int | None, purpose: str | None,
) -> list[ReadAhead]:
    """What ``member_versions`` asks first, for a read to send ahead (PostgreSQL sends
    them in one round trip): the subject's consent, the attribute's schema, the members."""
    reads: list[ReadAhead] = [
        Consents(subject), Declared(attribute), Members(subject, members_prefix(attribute, None), at, known_at),
    ]
    if purpose is not None:
        reads.append(Members(subject, members_prefix(attribute, purpose), at, known_at))
    return reads
