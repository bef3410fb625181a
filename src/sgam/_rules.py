"""The ledger's rules (replay format 1), as pure functions over one key's versions.

The write service applies them to the database one operation at a time; erasure applies
them to the remaining operation log of a key to re-derive it. Sharing one planner is what
makes "as if the erased operations had never been recorded" exact.

Times are integer microseconds (UTC). A *version* is one row of the bitemporal table:
an assertion's value over ``[valid_from, valid_to)`` as recorded over
``[recorded_from, recorded_to)``; *current* versions have ``recorded_to is None``.
"""

from __future__ import annotations

import bisect
import enum
from dataclasses import dataclass
from typing import Protocol

from ._errors import ConflictError, NotFoundError, SgamError
from ._time import format_timestamp, from_micros


class OpKind(enum.StrEnum):
    WRITE = "write"
    RETRACT = "retract"
    CORRECT = "correct"


class Effect(enum.StrEnum):
    """What an accepted operation did to the current state of its key."""

    CREATED = "created"
    SUPERSEDED = "superseded"
    CORROBORATED = "corroborated"
    RETRACTED = "retracted"
    CORRECTED = "corrected"


@dataclass(slots=True)
class Operation:
    """One accepted entry of a key's append-only log; ``seq`` orders the whole ledger."""

    seq: int
    subject: str
    attribute: str
    kind: OpKind
    valid_at: int
    value: str | None
    source: str
    recorded_at: int
    memory_type: str
    confidence: float
    schema_version: int
    expires_at: int | None = None


@dataclass(slots=True)
class Version:
    assertion_id: int
    subject: str
    attribute: str
    value: str
    valid_from: int
    valid_to: int | None
    recorded_from: int
    recorded_to: int | None
    source: str
    memory_type: str
    confidence: float
    schema_version: int
    supersedes: int | None
    origin: OpKind
    closed_by: str | None = None
    row_id: int | None = None

    def holds_at(self, moment: int) -> bool:
        return self.valid_from <= moment and (self.valid_to is None or moment < self.valid_to)


class KeyView(Protocol):
    """Index lookups over the current versions of one key."""

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        """The current version with the greatest ``valid_from`` <= (or <) ``moment``."""

    def ceiling(self, moment: int) -> Version | None:
        """The current version with the smallest ``valid_from`` > ``moment``."""


@dataclass(slots=True)
class Plan:
    effect: Effect
    retire: list[Version]
    add: list[Version]


def _new_version(op: Operation, valid_from: int, valid_to: int | None, supersedes: int | None) -> Version:
    assert op.value is not None
    return Version(
        assertion_id=op.seq,
        subject=op.subject,
        attribute=op.attribute,
        value=op.value,
        valid_from=valid_from,
        valid_to=valid_to,
        recorded_from=op.recorded_at,
        recorded_to=None,
        source=op.source,
        memory_type=op.memory_type,
        confidence=op.confidence,
        schema_version=op.schema_version,
        supersedes=supersedes,
        origin=op.kind,
    )


def _shortened(version: Version, valid_to: int, op: Operation) -> Version:
    # Built field by field: ``dataclasses.replace`` costs several times more per call.
    return Version(
        version.assertion_id, version.subject, version.attribute, version.value,
        version.valid_from, valid_to, op.recorded_at, None, version.source, version.memory_type,
        version.confidence, version.schema_version, version.supersedes, version.origin,
        op.source, None,
    )


def _retired(version: Version, recorded_to: int) -> Version:
    return Version(
        version.assertion_id, version.subject, version.attribute, version.value,
        version.valid_from, version.valid_to, version.recorded_from, recorded_to, version.source,
        version.memory_type, version.confidence, version.schema_version, version.supersedes,
        version.origin, version.closed_by, version.row_id,
    )


def plan(op: Operation, view: KeyView) -> Plan:
    """Decide what ``op`` does to the key; raise ConflictError/NotFoundError if refused."""
    if op.kind is OpKind.WRITE:
        return _plan_write(op, view)
    if op.kind is OpKind.RETRACT:
        return _plan_retract(op, view)
    return _plan_correct(op, view)


def _plan_write(op: Operation, view: KeyView) -> Plan:
    start = op.valid_at
    holder = view.floor(start)
    if holder is not None and holder.valid_from == start:
        if holder.value == op.value:
            return Plan(Effect.CORROBORATED, [], [])
        raise ConflictError(
            f"{_key(op)} already has an assertion starting at {_instant(start)} with value {holder.value}; "
            "correct it instead of overwriting",
            field="valid_from",
        )
    if holder is not None and holder.holds_at(start):
        if holder.value == op.value:
            return Plan(Effect.CORROBORATED, [], [])
        closed = _shortened(holder, start, op)
        new = _new_version(op, start, holder.valid_to, holder.assertion_id)
        return Plan(Effect.SUPERSEDED, [holder], [closed, new])
    following = view.ceiling(start)
    end = following.valid_from if following is not None else None
    return Plan(Effect.CREATED, [], [_new_version(op, start, end, None)])


def _plan_retract(op: Operation, view: KeyView) -> Plan:
    holder = view.floor(op.valid_at, strict=True)
    if holder is None or not holder.holds_at(op.valid_at):
        starting = view.floor(op.valid_at)
        hint = ""
        if starting is not None and starting.valid_from == op.valid_at:
            hint = (f"; the assertion starting there (value {starting.value}) holds from that instant on, so "
                    "a retract must come after its start (to remove it altogether, forget its episode)")
        raise NotFoundError(f"no assertion of {_key(op)} holds at {_instant(op.valid_at)}{hint}", field="at")
    return Plan(Effect.RETRACTED, [holder], [_shortened(holder, op.valid_at, op)])


def _plan_correct(op: Operation, view: KeyView) -> Plan:
    target = view.floor(op.valid_at)
    if target is None or target.valid_from != op.valid_at:
        hint = "" if target is None or not target.holds_at(op.valid_at) else (
            f"; the one holding then starts at {_instant(target.valid_from)}")
        raise NotFoundError(f"no assertion of {_key(op)} starts at {_instant(op.valid_at)}{hint}",
                            field="valid_from")
    corrected = _new_version(op, target.valid_from, target.valid_to, target.assertion_id)
    corrected.closed_by = target.closed_by
    return Plan(Effect.CORRECTED, [target], [corrected])


def _key(op: Operation) -> str:
    return f"{op.subject}.{op.attribute}"


def _instant(micros: int) -> str:
    return format_timestamp(from_micros(micros))


class KeyTimeline:
    """One key's versions in memory: re-derivation after erasure and batch ingest."""

    def __init__(self, current: list[Version] | None = None) -> None:
        self._current: list[Version] = sorted(current or [], key=lambda v: v.valid_from)
        self._starts: list[int] = [v.valid_from for v in self._current]
        self.retired: list[Version] = []

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        index = (bisect.bisect_left if strict else bisect.bisect_right)(self._starts, moment) - 1
        return self._current[index] if index >= 0 else None

    def ceiling(self, moment: int) -> Version | None:
        index = bisect.bisect_right(self._starts, moment)
        return self._current[index] if index < len(self._current) else None

    @property
    def current(self) -> list[Version]:
        return list(self._current)

    def apply(self, op: Operation) -> Plan:
        result = plan(op, self)
        for version in result.retire:
            index = bisect.bisect_left(self._starts, version.valid_from)
            del self._current[index]
            del self._starts[index]
            if version.recorded_from != op.recorded_at:
                self.retired.append(_retired(version, op.recorded_at))
        for version in result.add:
            index = bisect.bisect_left(self._starts, version.valid_from)
            self._current.insert(index, version)
            self._starts.insert(index, version.valid_from)
        return result

    def replay(self, operations: list[Operation]) -> list[SgamError]:
        """Apply a key's log in order; operations the rules now refuse have no effect."""
        refused: list[SgamError] = []
        for op in operations:
            try:
                self.apply(op)
            except (ConflictError, NotFoundError) as exc:
                refused.append(exc)
        return refused

    def all_versions(self) -> list[Version]:
        """Every version that was ever visible, retired ones included; a version replaced
        at the very instant it was recorded was never visible and is not kept."""
        return self.retired + self._current
