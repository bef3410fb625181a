"""``query``'s filters select exactly what the unfiltered query holds, on every backend.

SQLite finds a filter's keys in per-key tables (by attribute, by memory type) rather than
in indexes over every version, so a filtered query is checked against the tenant's whole
answer filtered in Python, over random histories: writes that change a key's memory
type, retractions, corrections, purposes, every reading time, and paging."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import Assertion, Memory, SgamError
from tests.conftest import ManualClock

SUBJECTS = ("ana", "ben", "cy")
ATTRIBUTES = ("city", "diet", "job")
TYPES = (None, "fact", "profile", "preference")
_tenants = itertools.count()


def _month(month: int) -> datetime:
    return datetime(2025, month, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Step:
    kind: str
    subject: str
    attribute: str
    month: int
    value: str
    memory_type: str | None
    purpose: str | None


steps = st.builds(
    Step,
    kind=st.sampled_from(("write", "write", "write", "retract", "correct")),
    subject=st.sampled_from(SUBJECTS),
    attribute=st.sampled_from(ATTRIBUTES),
    month=st.integers(1, 6),
    value=st.sampled_from(("x", "y", "z")),
    memory_type=st.sampled_from(TYPES),
    purpose=st.sampled_from((None, None, "ads")),
)


@dataclass(frozen=True)
class Filter:
    subject: str | None
    attribute: str | None
    memory_type: str | None
    mode: str
    month: int
    purpose: str | None


filters = st.builds(
    Filter,
    subject=st.sampled_from((None, *SUBJECTS[:2])),
    attribute=st.sampled_from((None, *ATTRIBUTES[:2])),
    memory_type=st.sampled_from((None, "fact", "profile", "preference")),
    mode=st.sampled_from(("now", "at", "known_at", "all_times")),
    month=st.integers(1, 7),
    purpose=st.sampled_from((None, "ads")),
)


def _apply(memory: Memory, tenant: str, step: Step) -> None:
    try:
        if step.kind == "write":
            memory.write(tenant, step.subject, step.attribute, step.value, _month(step.month), "e",
                         memory_type=step.memory_type, purpose=step.purpose)
        elif step.kind == "retract":
            memory.retract(tenant, step.subject, step.attribute, _month(step.month), "e", purpose=step.purpose)
        else:
            memory.correct(tenant, step.subject, step.attribute, _month(step.month), step.value, "e",
                           purpose=step.purpose)
    except SgamError:
        pass  # a refused operation changes nothing, which is part of what is checked


def _times(flt: Filter, instants: list[datetime]) -> dict[str, Any]:
    """The query arguments of the filter's reading time."""
    return {
        "now": {}, "at": {"at": _month(flt.month)}, "all_times": {"all_times": True},
        "known_at": {"known_at": instants[min(flt.month, len(instants)) - 1]},
    }[flt.mode]


def _query(memory: Memory, tenant: str, flt: Filter, instants: list[datetime], **narrow: Any) -> list[Assertion]:
    return list(memory.query(tenant, limit=10_000, purpose=flt.purpose, **_times(flt, instants), **narrow))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(steps, min_size=1, max_size=25), asked=st.lists(filters, min_size=1, max_size=6))
def test_a_filtered_query_is_the_whole_answer_filtered(
    memory: Memory, clock: ManualClock, history: list[Step], asked: list[Filter],
) -> None:
    tenant = f"q{next(_tenants)}"
    memory.add_episode(tenant, "e", _month(1), "what was said")
    memory.declare(tenant, "diet", "string", memory_type="preference")
    instants = []
    for step in history:
        clock.advance()
        _apply(memory, tenant, step)
        instants.append(clock.now)
    for flt in asked:
        if flt.purpose is not None and flt.memory_type is not None:
            # a purpose's version hides the general one only among the versions the
            # type filter lets through: not a per-version filter of the whole answer
            continue
        whole = _query(memory, tenant, flt, instants)
        expected = [
            a for a in whole
            if flt.subject in (None, a.subject) and flt.attribute in (None, a.attribute)
            and flt.memory_type in (None, a.memory_type)
        ]
        narrowed = _query(memory, tenant, flt, instants, subject=flt.subject, attribute=flt.attribute,
                          memory_type=flt.memory_type)
        assert narrowed == expected, flt
        if flt.purpose is None:
            assert _paged(memory, tenant, flt, instants) == expected, flt


def _paged(memory: Memory, tenant: str, flt: Filter, instants: list[datetime]) -> list[Assertion]:
    """The same query two results at a time, through its cursors."""
    found: list[Assertion] = []
    cursor = None
    while True:
        page = memory.query(tenant, subject=flt.subject, attribute=flt.attribute, memory_type=flt.memory_type,
                            limit=2, cursor=cursor, **_times(flt, instants))
        found.extend(page)
        cursor = page.next_cursor
        if cursor is None:
            return found
