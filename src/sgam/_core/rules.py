"""The ledger's rules (replay format 1), as pure functions over one key's versions.

The write service applies them to the database one operation at a time; erasure applies
them to the remaining operation log of a key to re-derive it. Sharing one planner is what
makes "as if the erased operations had never been recorded" exact.

Times are integer microseconds (UTC). A *version* is one row of the bitemporal table:
an assertion's value over ``[valid_from, valid_to)`` as recorded over
``[recorded_from, recorded_to)``; *current* versions have ``recorded_to is None``.

A stored ``valid_to`` is an upper bound: a version ends where it was stored to end or
where the next version of its key (as recorded at the same instant) starts, whichever
comes first (``ended``). So an ordinary write, which closes the version holding at its
start, is a single appended row; only corrections, retractions and erasures retire rows.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .errors import ConflictError, NotFoundError, SgamError
from .time import format_timestamp, from_micros


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
    """Index lookups over the current versions of one key, ends derived (``ended``)."""

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        """The current version with the greatest ``valid_from`` <= (or <) ``moment``."""

    def ceiling(self, moment: int) -> Version | None:
        """The current version with the smallest ``valid_from`` > ``moment``."""


def ended(version: Version, following: Version | None) -> Version:
    """``version`` as it reads when ``following`` is the next version of its key visible
    at the same recorded instant (``cut`` by it)."""
    return version if following is None else cut(version, following.valid_from, following.source)


def cut(version: Version, start: int, source: str) -> Version:
    """``version`` followed by a version starting at ``start`` from episode ``source``:
    cut there if that comes before its stored end, and then closed by ``source``."""
    if version.valid_to is not None and version.valid_to <= start:
        return version
    return Version(
        version.assertion_id, version.subject, version.attribute, version.value,
        version.valid_from, start, version.recorded_from, version.recorded_to, version.source,
        version.memory_type, version.confidence, version.schema_version, version.supersedes,
        version.origin, source, version.row_id,
    )


def ended_all(versions: list[Version]) -> list[Version]:
    """Versions of one key visible at one instant, ordered by ``valid_from``, as they read."""
    return [ended(v, versions[i + 1] if i + 1 < len(versions) else None) for i, v in enumerate(versions)]


def as_last_seen(versions: list[Version]) -> list[Version]:
    """Every stored version of one key (any order), each as it read at the last instant
    it was visible: its end derived from the versions visible then. Keys hold few
    versions; this serves the full-history read, not the hot path."""
    result: list[Version] = []
    for version in versions:
        last = version.recorded_to
        following: Version | None = None
        for other in versions:
            if other.valid_from <= version.valid_from:
                continue
            if last is None:
                visible = other.recorded_to is None
            else:
                visible = other.recorded_from < last and (other.recorded_to is None or other.recorded_to >= last)
            if visible and (following is None or other.valid_from < following.valid_from):
                following = other
        result.append(ended(version, following))
    return result


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


Same = Callable[[str, str], bool]
"""Whether two stored values (canonical JSON) are one value. By default the same text;
a relation's values are one when they name one subject (an alias and its subject)."""


def _equal(stored: str, value: str | None, same: Same | None) -> bool:
    return stored == value or (same is not None and value is not None and same(stored, value))


def plan(op: Operation, view: KeyView, same: Same | None = None) -> Plan:
    """Decide what ``op`` does to the key; raise ConflictError/NotFoundError if refused.
    ``same``: how values compare (rules 1 and 2), when not by their text."""
    if op.kind is OpKind.WRITE:
        return _plan_write(op, view, same)
    if op.kind is OpKind.RETRACT:
        return _plan_retract(op, view)
    return _plan_correct(op, view)


def _plan_write(op: Operation, view: KeyView, same: Same | None) -> Plan:
    start = op.valid_at
    holder = view.floor(start)
    if holder is not None and holder.valid_from == start:
        if _equal(holder.value, op.value, same):
            return Plan(Effect.CORROBORATED, [], [])
        raise ConflictError(
            f"{_key(op)} already has an assertion starting at {_instant(start)} with value {holder.value}; "
            "correct it instead of overwriting",
            field="valid_from",
        )
    if holder is not None and holder.holds_at(start):
        if _equal(holder.value, op.value, same):
            return Plan(Effect.CORROBORATED, [], [])
        # The holder is not touched: the new version starting inside it ends it (``ended``).
        return Plan(Effect.SUPERSEDED, [], [_new_version(op, start, holder.valid_to, holder.assertion_id)])
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
    """One key's versions in memory: re-derivation after erasure and batch ingest. It
    holds rows as they are stored (``current``, ``all_versions``) and answers lookups
    with their ends derived, as the database does."""

    def __init__(self, current: list[Version] | None = None, same: Same | None = None) -> None:
        self.same = same
        self._current: list[Version] = sorted(current or [], key=lambda v: v.valid_from)
        self._starts: list[int] = [v.valid_from for v in self._current]
        self.retired: list[Version] = []

    def _at(self, index: int) -> Version | None:
        if index < 0 or index >= len(self._current):
            return None
        following = self._current[index + 1] if index + 1 < len(self._current) else None
        return ended(self._current[index], following)

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        return self._at((bisect.bisect_left if strict else bisect.bisect_right)(self._starts, moment) - 1)

    def ceiling(self, moment: int) -> Version | None:
        return self._at(bisect.bisect_right(self._starts, moment))

    @property
    def current(self) -> list[Version]:
        """The current rows as stored (the objects passed in are kept, not copied)."""
        return list(self._current)

    def apply(self, op: Operation) -> Plan:
        result = plan(op, self, self.same)
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
        """Every row to store, retired ones included; a version replaced at the very
        instant it was recorded was never visible and is not kept."""
        return self.retired + self._current
