"""The inspector's subject page: what a subject is called, its attributes, its sets with
every member's versions on the valid/transaction timeline, its relations in both
directions, and a picture of its neighbourhood, all read at one chosen instant (``at``,
``known_at``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ..._core.errors import NotFoundError
from ..._core.model import Assertion
from ..._core.schema import AttributeSchema, Cardinality, ValueType
from ..._core.values import check_subject
from ...access import Principal
from ...memory.facade import Memory
from .. import downloads
from . import neighbourhood
from .pages import OVERVIEW_ROWS, _guarded, _memory, _moment, _page
from .sessions import Session
from .timeline import Timeline, draw, short_time

router = APIRouter(prefix="/ui", include_in_schema=False)
LINKED_SHOWN = 200
"""Subjects listed per inbound relation; the page says when there are more."""


@dataclass(frozen=True, slots=True)
class Names:
    """What the subject is called: its id, the spelling shown to people, the stored
    spellings the normalisation left apart, and its other names (aliases) with when and
    by whose decision each was given."""

    id: str
    display: str
    collisions: list[str]
    aliases: list[Any] = field(default_factory=list)


def subject_names(memory: Memory, tenant: str, subject: str) -> Names:
    """The one source of the page's "Names and merges" section: display name,
    collisions, and the library's record of the subject's aliases."""
    display = memory.display_names(tenant, [subject])[subject]
    collisions = [stored for normalised, stored in memory.subject_collisions(tenant) if normalised == subject]
    aliases = [f"{n.name} means {n.subject} since {short_time(n.since)}"
               + ("" if n.until is None else f", until {short_time(n.until)}")
               + ("" if n.decided_by is None else f", by {n.decided_by}") for n in memory.names(tenant, subject)]
    return Names(subject, display, collisions, aliases)


@dataclass(frozen=True, slots=True)
class OneValue:
    """A one-valued attribute as it holds at the chosen instant (None: nothing holds)."""

    attribute: str
    holding: Assertion | None
    relation: bool


@dataclass(frozen=True, slots=True)
class SetView:
    """A set: the members holding at the chosen instant, and every version of every member."""

    attribute: str
    members: list[Assertion]
    timeline: Timeline
    narrow: Timeline
    """The same versions drawn for a phone's width."""
    relation: bool


@dataclass(frozen=True, slots=True)
class Inbound:
    """Subjects whose relation ``attribute`` names this subject at the chosen instant."""

    attribute: str
    subjects: list[str]
    more: bool


def _relation(declared: AttributeSchema | None) -> bool:
    return declared is not None and declared.value_type is ValueType.SUBJECT


def _subject(memory: Memory, tenant: str, name: str, at: str | None, known_at: str | None) -> dict[str, Any]:
    """The page of the subject ``name`` means (an alias leads to the subject it names, as
    every read resolves it), as believed at ``known_at``."""
    at_moment, known_moment = _moment(at, "at"), _moment(known_at, "known_at")
    now = memory.clock()
    instant = at_moment or now
    subject = memory.resolve(tenant, name, known_at=known_moment)
    names = subject_names(memory, tenant, subject)
    declared = {schema.attribute: schema for schema in memory.schema(tenant)[0]}
    recorded = memory.query(tenant, subject=subject, all_times=True, limit=OVERVIEW_ROWS)
    attributes = sorted({a.attribute for a in recorded if a.purpose is None})
    ones, sets, edges = [], [], []
    for attribute in attributes:
        schema = declared.get(attribute)
        relation = _relation(schema)
        if schema is not None and schema.cardinality is Cardinality.MANY:
            members = memory.members(tenant, subject, attribute, at=instant, known_at=known_moment)
            versions = memory.versions(tenant, subject, attribute)
            sets.append(SetView(attribute, members, draw(versions, now), draw(versions, now, narrow=True), relation))
            held = [m.value for m in members]
        else:
            holding = memory.get(tenant, subject, attribute, at=instant, known_at=known_moment)
            ones.append(OneValue(attribute, holding, relation))
            held = [] if holding is None else [holding.value]
        if relation:
            edges += [neighbourhood.Edge(attribute, str(value), outward=True) for value in held]
    inbound = []
    for attribute in sorted(a for a, schema in declared.items() if _relation(schema)):
        found = memory.linked(tenant, attribute, subject, at=instant, known_at=known_moment, limit=LINKED_SHOWN + 1)
        if found:
            inbound.append(Inbound(attribute, found[:LINKED_SHOWN], len(found) > LINKED_SHOWN))
            edges += [neighbourhood.Edge(attribute, other, outward=False) for other in found[:LINKED_SHOWN]]
    named = {subject} | {edge.neighbour for edge in edges}
    labels = memory.display_names(tenant, sorted(named))
    return {
        "names": names, "ones": ones, "sets": sets, "inbound": inbound, "labels": labels,
        "picture": neighbourhood.draw(subject, labels, edges),
        "narrow_picture": neighbourhood.draw(subject, labels, edges, narrow=True),
        "at": at or "", "known_at": known_at or "",
        "instant": instant, "known_moment": known_moment, "now": now,
        "found": bool(recorded or inbound or names.collisions), "subject": subject,
    }


@router.get("/subject", response_class=HTMLResponse)
@router.get("/subjects/{subject}", response_class=HTMLResponse)
async def subject_page(request: Request, subject: str, at: str | None = None,
                       known_at: str | None = None) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        checked = check_subject(subject, "subject")
        data = await _memory(request).call(_subject, principal.tenant, checked, at, known_at)
        if not data["found"]:  # never recorded, or erased: the page must not name it
            return _page(request, "error.html", session, principal, 404,
                         error=NotFoundError("nothing recorded about this subject in this tenant"))
        called = subject.strip() if data["subject"] != checked else None
        return _page(request, "subject.html", session, principal, called=called, **data)

    return await _guarded(request, "read", render)



@router.get("/subjects/{subject}/export")
async def subject_export(request: Request, subject: str) -> Response:
    """What the tenant holds about the subject, as a download (admin keys)."""

    async def render(session: Session, principal: Principal) -> Response:
        return await downloads.subject_export(_memory(request), principal.tenant, check_subject(subject, "subject"))

    return await _guarded(request, "admin", render)
