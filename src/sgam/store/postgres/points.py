"""A point read in one statement (``sgam_point_reads``, migration 17; names from 22).

``PointRead`` names what a point read asks first: the subject's consent statements, what
its subject and attribute names mean, and the versions of its timelines. Asked with the
deadline probe, that is one server call: it sets the tenant, probes, and answers them
all, outside any pipeline. Its rows are read by column position into answers keyed as the
reads ask (``PointAnswers``), so the reader gives them back when those reads run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..._core.purpose import ConsentRow
from ..._core.rules import Version
from .._access import KeyToCheck
from .._records import BackfillRow
from .._requests import PointRead
from .._rows import version_from_row
from .._sql.ledger import holding_at
from .adapters import Micros, MicrosArray, Texts
from .lookups import VERSION_NAMES
from .session import Cursor

CALL = (
    "SELECT * FROM sgam_point_reads(%s, %s, %s::text[], %s::text[], %s::text[], %s::timestamptz[], "
    "%s::timestamptz[])"
)
KEYED_CALL = (
    "SELECT * FROM sgam_keyed_point_reads(%s, %s, %s, %s, %s::text[], %s::text[], %s::text[], %s::timestamptz[], "
    "%s::timestamptz[])"
)
"""The same after the check of the call's API key (module v33)."""
DUE, _CONSENT, _VERSION, _SUBJECT, _ATTRIBUTE, BACKFILL = 0, 1, 2, 3, 4, 6
"""The parts of the answer: the probe found something due; a consent statement; a version
near an item's instant; what an item's subject name, or its attribute name, means; an
unfinished backfill of the tenant (migration module v27)."""
COLUMNS = (
    "part", "item", "row_id", "assertion_id", "subject", "attribute", "value", "memory_type", "valid_from",
    "valid_to", "recorded_from", "recorded_to", "source", "confidence", "schema_version", "supersedes", "origin",
    "closed_by", "purpose", "granted", "changed_at", "seq",
)
"""The function's columns, in the order of a row fetched as a tuple."""
_PART, _ITEM, _SUBJECT_AT, _PURPOSE, _GRANTED, _CHANGED_AT, _SEQ = (
    COLUMNS.index(name) for name in ("part", "item", "subject", "purpose", "granted", "changed_at", "seq"))
_VERSION_AT = tuple(COLUMNS.index(name) for name in VERSION_NAMES)
"""Where the parts are in a row: rows come back as tuples, because building a mapping per
row cost a point read more than reading its answer."""


def backfill_of(row: Mapping[str, Any] | tuple[Any, ...]) -> BackfillRow:
    """A backfill row of the function, in the columns it fills."""
    r = row if isinstance(row, Mapping) else dict(zip(COLUMNS, row, strict=True))
    return BackfillRow(int(r["row_id"]), str(r["attribute"]), r["subject"], int(r["assertion_id"]),
                       int(r["supersedes"]), int(r["seq"]), int(r["valid_from"]), None, r["value"])


@dataclass
class PointAnswers:
    """What a point read will ask, answered: each is given back once."""

    consents: dict[str, list[ConsentRow]] = field(default_factory=dict)
    subjects: dict[tuple[str, int | None], str] = field(default_factory=dict)
    attributes: dict[tuple[str, int | None], str] = field(default_factory=dict)
    versions: dict[tuple[str, str, int, int | None], Version | None] = field(default_factory=dict)
    backfills: list[BackfillRow] = field(default_factory=list)


def ask(
    cur: Cursor, tenant: str, now: int, request: PointRead, checking: KeyToCheck | None = None,
) -> PointAnswers | None:
    """Run the call for ``request``, after the check of ``checking``, an API key, if given; None when something
    of the tenant is due at ``now`` (then nothing is answered: the deadline is settled in
    a write first)."""
    subjects, attributes, ats, knowns = Texts(), Texts(), MicrosArray(), MicrosArray()
    items: list[tuple[str, str, int, int | None]] = []

    def item(subject: str | None, attribute: str | None, at: int | None) -> None:
        subjects.append(subject)
        attributes.append(attribute)
        ats.append(at)
        knowns.append(request.known_at)

    item(request.subject, None, None)
    item(None, request.attribute, None)
    for timeline in request.timelines:
        item(request.subject, timeline, request.at)
        items.append((request.subject, timeline, request.at, request.known_at))
    params = (tenant, Micros(now), Texts([request.subject]), subjects, attributes, ats, knowns)
    if checking is None:
        rows: list[tuple[Any, ...]] = cur.execute(CALL, params).fetchall()
    else:
        rows = cur.execute(KEYED_CALL, (checking.key_id, checking.digest, *params)).fetchall()
    if rows and rows[0][_PART] == DUE:
        return None
    answers = PointAnswers(backfills=[backfill_of(r) for r in rows if r[_PART] == BACKFILL])
    known = request.known_at
    answers.consents[request.subject] = [
        ConsentRow(r[_SUBJECT_AT], r[_PURPOSE], bool(r[_GRANTED]), r[_CHANGED_AT], r[_SEQ])
        for r in rows if r[_PART] == _CONSENT]
    answers.subjects[(request.subject, known)] = next(
        (str(r[_SUBJECT_AT]) for r in rows if r[_PART] == _SUBJECT), request.subject)
    answers.attributes[(request.attribute, known)] = next(
        (str(r[_SUBJECT_AT]) for r in rows if r[_PART] == _ATTRIBUTE), request.attribute)
    for number, key in enumerate(items, start=3):
        around = [version_from_row(tuple(r[i] for i in _VERSION_AT))
                  for r in rows if r[_PART] == _VERSION and r[_ITEM] == number]
        answers.versions[key] = holding_at(around, request.at)
    return answers
