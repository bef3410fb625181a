"""Reads during a backfill: a key its backfill has not reached yet answers what it will
answer once converted, by deriving it on the fly.

A backfilled step is recorded at once, but the stored versions of a subject after the
backfill's ``after_subject`` are still the old shape's. A read of such a key, at
any ``known_at``, derives the subject's keys of the step's attributes from their
operations and every recorded step — the derivation a batch stores — and answers from
those versions exactly as the SQL answers from stored ones (an end derived from the
next version visible at the same instant). An earlier ``known_at`` too: the versions
visible then are the same, but the batch records that they stopped being current at
the step. Keys hold few operations, so a derivation costs a statement and
microseconds; it is done once per subject per read scope.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from .._core.conversions import convert_all
from .._core.purpose import split_attribute
from .._core.rules import Version, as_last_seen, ended, ended_all
from .._core.schema import ValueType
from ..store import BackfillRow, QueryFilter, Reader
from .backfill import family_of
from .derivation import Key, derive_subjects
from .families import alias_family


def _visible(version: Version, known_at: int | None) -> bool:
    if known_at is None:
        return version.recorded_to is None
    return version.recorded_from <= known_at and (version.recorded_to is None or known_at < version.recorded_to)


def _timeline(versions: list[Version], known_at: int | None) -> list[Version]:
    """The versions visible at ``known_at``, by ``valid_from``, each ended by the next."""
    return ended_all(sorted((v for v in versions if _visible(v, known_at)), key=lambda v: v.valid_from))


def _holding(versions: list[Version], at: int, known_at: int | None) -> Version | None:
    """The visible version with the greatest ``valid_from`` <= ``at``, ended by the next
    visible one, if it still holds at ``at`` (the SQL point read's answer)."""
    floor = following = None
    for version in versions:
        if not _visible(version, known_at):
            continue
        if version.valid_from <= at:
            if floor is None or version.valid_from > floor.valid_from:
                floor = version
        elif following is None or version.valid_from < following.valid_from:
            following = version
    if floor is None:
        return None
    found = ended(floor, following)
    return found if found.holds_at(at) else None


def _retired(version: Version, at: int) -> Version:
    return Version(version.assertion_id, version.subject, version.attribute, version.value, version.valid_from,
                   version.valid_to, version.recorded_from, at, version.source, version.memory_type,
                   version.confidence, version.schema_version, version.supersedes, version.origin,
                   version.closed_by)


def _from(version: Version, value: str, at: int) -> Version:
    return Version(version.assertion_id, version.subject, version.attribute, value, version.valid_from,
                   version.valid_to, at, None, version.source, version.memory_type, version.confidence,
                   version.schema_version, version.supersedes, version.origin, version.closed_by)


def _in_range(attribute: str, prefix: str) -> bool:
    return attribute.startswith(prefix)


@dataclass(frozen=True, slots=True)
class _Step:
    """A lone retype's new type and map, parsed once per step rather than once per read."""

    seq: int
    value_type: ValueType
    mapping: dict[str, str]
    at: int

    def converted(self, values: Iterable[str]) -> dict[str, str] | None:
        """Each value's conversion; None when one has none or two convert to one value."""
        found = convert_all(values, self.value_type, self.mapping)
        return None if found is None or len(set(found.values())) < len(found) else found


@lru_cache(maxsize=64)
def _step(seq: int, conversion: str, at: int) -> _Step:
    step = json.loads(conversion)
    return _Step(seq, ValueType(step["type"]), {str(old): str(new) for old, new in step["map"]}, at)


@dataclass(frozen=True, slots=True)
class _Lone:
    """A key under a lone retype: its stored versions and how each value converts (None:
    none changes, the key stays as stored)."""

    stored: list[Version]
    values: dict[str, str] | None
    at: int

    def versions(self) -> list[Version]:
        if self.values is None:
            return self.stored
        kept = [v if v.recorded_to is not None else _retired(v, self.at) for v in self.stored]
        return kept + [_from(v, self.values[v.value], self.at) for v in self.stored if v.recorded_to is None]


class DualReader:
    """A ``Reader`` whose version reads of a key an unfinished backfill has not reached
    answer from its derivation; every other call goes to the reader it wraps."""

    def __init__(self, inner: Reader, rows: list[BackfillRow]) -> None:
        self._inner = inner
        self._rows = [(row, family_of(row)) for row in rows]
        self._family = frozenset(name for _, family in self._rows for name in family)
        self._derived: dict[str, dict[Key, list[Version]]] = {}
        self._steps: dict[str, _Step | None] = {}

    @classmethod
    def around(cls, reader: Reader) -> Reader:
        """``reader`` itself while its tenant has no unfinished backfill (most tenants)."""
        rows = reader.unfinished_backfills()
        return reader if not rows else cast(Reader, cls(reader, rows))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _behind(self, subject: str, attribute: str) -> bool:
        """As ``backfill.behind``, with each backfill's attributes read once per scope."""
        base = split_attribute(attribute)[0]
        if base not in self._family:
            return False
        return any(base in family and (row.after_subject is None or subject > row.after_subject)
                   for row, family in self._rows)

    def _keys(self, subject: str) -> dict[Key, list[Version]]:
        """Every key of the subject under the unfinished steps' attributes, derived."""
        if subject not in self._derived:
            names = alias_family(self._inner.alias_steps(), [subject])
            derivation = derive_subjects(self._inner, self._inner.declared, names, self._family)
            self._derived[subject] = {key: versions for key, versions in derivation.versions().items()
                                      if key[0] == subject}
        return self._derived[subject]

    def _key(self, subject: str, attribute: str) -> list[Version]:
        found = self._lone(subject, attribute)
        return self._keys(subject).get((subject, attribute), []) if found is None else found.versions()

    def _lone_step(self, attribute: str) -> _Step | None:
        """The lone retype of the attribute's only unfinished backfill, if it is one."""
        if attribute not in self._steps:
            base = split_attribute(attribute)[0]
            rows = [row for row, family in self._rows if base in family]
            lone = len(rows) == 1 and rows[0].conversion is not None
            self._steps[attribute] = _step(rows[0].seq, str(rows[0].conversion), rows[0].started_at) if lone else None
        return self._steps[attribute]

    def _lone(self, subject: str, attribute: str) -> _Lone | None:
        """The key as a lone retype (``BackfillRow.conversion``) makes it, from its stored
        versions alone; None when the log must decide: a value with no conversion (set
        aside: a neighbour it closed holds again) or two values that convert to one (a
        later one corroborates instead of superseding).

        Otherwise, replayed at the step with converted values, the operations make the
        versions they made, the values converted: the rules compare values only for
        equality, which a conversion without collisions keeps. So the current versions
        are retired at the step and come back converted from it, and a key whose values
        all stay as they are is left as stored (as the derivation leaves it).

        A key recorded or retired after the step's instant was derived since the step (a
        write, an erasure) and is answered as stored. One whose last change is at that
        instant is either: a step takes the instant of the last operation it covers when
        the clock has not passed it, so the log decides."""
        step = self._lone_step(attribute)
        if step is None:
            return None
        stored = self._inner.key_rows(subject, attribute)
        last = max((max(v.recorded_from, v.recorded_to or 0) for v in stored), default=None)
        if last is not None and last > step.at:
            return _Lone(stored, None, step.at)  # derived since the step: as stored
        if last == step.at:
            return None
        converted = step.converted({v.value for v in stored})
        if converted is None:
            return None
        return _Lone(stored, None if all(old == new for old, new in converted.items()) else converted, step.at)

    def _lone_get(self, subject: str, attribute: str, at: int, known_at: int | None) -> tuple[bool, Version | None]:
        """The point read of ``_lone``'s versions without building them; (False, None)
        when the log must decide.

        A key the backfill's screening held out (``screening``), or any key before the
        screening, first reads its distinct values: each must convert, none to another's
        value; a key derived since the step (a write, an erasure), or whose values all stay
        as they are, is answered as stored. Then, as for a key the screening passed, the
        stored point read's answer is retired at the step (read before it), answered as
        stored (recorded after the step) or converted from the step. A version recorded at
        the step's instant may be of an operation before the step or of the step's own
        conversion (``_lone``): the log decides.

        Building all ten versions of a key to answer one made a read of an unconverted key
        2.38x an untouched read at 1M versions on SQLite (``bench/migrations.py``);
        reading its values still made it 1.9-2.5x, hence the screening."""
        step = self._lone_step(attribute)
        if step is None:
            return False, None
        converted: dict[str, str] | None = None
        if self._inner.holdout(step.seq, subject) is not False:
            values, since = self._inner.key_values(subject, attribute, step.at)
            if since > 0:
                return True, self._inner.get(subject, attribute, at, known_at)  # derived since the step
            if since == 0:
                return False, None
            converted = step.converted(values)
            if converted is None:
                return False, None
            if all(map(str.__eq__, converted, converted.values())):
                return True, self._inner.get(subject, attribute, at, known_at)  # left as stored
        found = self._inner.get(subject, attribute, at, known_at)
        if found is None:
            return True, None
        if known_at is not None and known_at < step.at:
            return True, found if found.recorded_to is not None else _retired(found, step.at)
        if found.recorded_from > step.at:
            return True, found
        if found.recorded_from == step.at:
            return False, None
        if converted is None:
            converted = step.converted([found.value])
            if converted is None:  # a value the screening passed that does not convert: the log decides
                return False, None
        return True, _from(found, converted[found.value], step.at)

    def _member_keys(self, subject: str, prefix: str) -> list[str]:
        return sorted(attribute for (_, attribute), versions in self._keys(subject).items()
                      if versions and _in_range(attribute, prefix))

    # the version reads -----------------------------------------------------------------

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        if not self._behind(subject, attribute):
            return self._inner.get(subject, attribute, at, known_at)
        answered, found = self._lone_get(subject, attribute, at, known_at)
        if answered:
            return found
        return _holding(self._key(subject, attribute), at, known_at)

    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        if not self._behind(subject, attribute):
            return self._inner.history(subject, attribute, known_at)
        return _timeline(self._key(subject, attribute), known_at)

    def versions(self, subject: str, attribute: str) -> list[Version]:
        if not self._behind(subject, attribute):
            return self._inner.versions(subject, attribute)
        return as_last_seen(sorted(self._key(subject, attribute), key=lambda v: (v.recorded_from, v.valid_from)))

    def member_keys(self, subject: str, prefix: str) -> list[str]:
        if not self._behind(subject, prefix):
            return self._inner.member_keys(subject, prefix)
        return self._member_keys(subject, prefix)

    def members(self, subject: str, prefix: str, at: int, known_at: int | None) -> list[Version]:
        if not self._behind(subject, prefix):
            return self._inner.members(subject, prefix, at, known_at)
        found = (_holding(self._key(subject, key), at, known_at) for key in self._member_keys(subject, prefix))
        return [version for version in found if version is not None]

    def set_history(self, subject: str, prefix: str, known_at: int | None) -> list[Version]:
        if not self._behind(subject, prefix):
            return self._inner.set_history(subject, prefix, known_at)
        found = [v for key in self._member_keys(subject, prefix) for v in _timeline(self._key(subject, key), known_at)]
        return sorted(found, key=lambda v: (v.valid_from, v.value))

    def query(self, flt: QueryFilter) -> list[Version]:
        """Rows of a key the backfill has not reached are replaced by its derivation's:
        the page keeps its order (subject, attribute, ``valid_from``)."""
        rows = self._inner.query(flt)
        if not any(self._behind(v.subject, v.attribute) for v in rows):
            return rows
        answered: list[Version] = []
        done: set[Key] = set()
        for version in rows:
            key = (version.subject, version.attribute)
            if not self._behind(key[0], key[1]):
                answered.append(version)
            elif key not in done:
                done.add(key)
                answered += self._query_key(key, flt)
        return answered

    def _query_key(self, key: Key, flt: QueryFilter) -> list[Version]:
        timeline = _timeline(self._key(*key), flt.known_at)
        if flt.at is None:
            return timeline
        holding = _holding(self._key(*key), flt.at, flt.known_at)
        return [] if holding is None else [holding]

    def holding(self, subjects: Sequence[str], attribute: str, at: int, known_at: int | None, *, members: bool = False,
                ) -> list[Version]:
        if not any(self._behind(s, attribute) for s in subjects):
            return self._inner.holding(subjects, attribute, at, known_at, members=members)
        found: list[Version] = []
        for subject in subjects:
            if not self._behind(subject, attribute):
                found += self._inner.holding([subject], attribute, at, known_at, members=members)
            elif members:
                found += self.members(subject, attribute, at, known_at)
            else:
                version = _holding(self._key(subject, attribute), at, known_at)
                found += [] if version is None else [version]
        return found

