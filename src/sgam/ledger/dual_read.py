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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .._core.conversions import convert
from .._core.purpose import split_attribute
from .._core.rules import Version, as_last_seen, ended, ended_all
from .._core.schema import ValueType
from ..store import BackfillRow, QueryFilter, Reader
from .backfill import family_of
from .derivation import Key, alias_family, derive_subjects


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

    def holding(self, at: int, known_at: int | None) -> Version | None:
        """As ``_holding(self.versions(), ...)``, converting only the version it answers."""
        if self.values is None:
            return _holding(self.stored, at, known_at)
        if known_at is not None and known_at < self.at:
            found = _holding(self.stored, at, known_at)
            return found if found is None or found.recorded_to is not None else _retired(found, self.at)
        found = _holding(self.stored, at, None)
        return None if found is None else _from(found, self.values[found.value], self.at)


class DualReader:
    """A ``Reader`` whose version reads of a key an unfinished backfill has not reached
    answer from its derivation; every other call goes to the reader it wraps."""

    def __init__(self, inner: Reader, rows: list[BackfillRow]) -> None:
        self._inner = inner
        self._rows = [(row, frozenset(family_of(row))) for row in rows]
        self._family = frozenset(name for _, family in self._rows for name in family)
        self._derived: dict[str, dict[Key, list[Version]]] = {}

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

    def _lone(self, subject: str, attribute: str) -> _Lone | None:
        """The key as a lone retype (``BackfillRow.conversion``) makes it, from its stored
        versions alone; None when the log must decide: a value with no conversion (set
        aside: a neighbour it closed holds again) or two values that convert to one (a
        later one corroborates instead of superseding).

        Otherwise, replayed at the step with converted values, the operations make the
        versions they made, the values converted: the rules compare values only for
        equality, which a conversion without collisions keeps. So the current versions
        are retired at the step and come back converted from it, and a key whose values
        all stay as they are is left as stored (as the derivation leaves it)."""
        base = split_attribute(attribute)[0]
        rows = [row for row, family in self._rows if base in family]
        if len(rows) != 1 or rows[0].conversion is None:
            return None
        step, at = json.loads(rows[0].conversion), rows[0].started_at
        stored = self._inner.key_rows(subject, attribute)
        if any(v.recorded_from >= at or v.recorded_to == at for v in stored):
            return _Lone(stored, None, at)  # derived since the step (a write, an erasure): as stored
        mapping = {str(old): str(new) for old, new in step["map"]}
        value_type = ValueType(step["type"])
        converted: dict[str, str] = {}
        for value in {v.value for v in stored}:
            found = convert(value, value_type, mapping)
            if found is None:
                return None
            converted[value] = found
        if len(set(converted.values())) < len(converted):
            return None
        return _Lone(stored, None if all(old == new for old, new in converted.items()) else converted, at)

    def _member_keys(self, subject: str, prefix: str) -> list[str]:
        return sorted(attribute for (_, attribute), versions in self._keys(subject).items()
                      if versions and _in_range(attribute, prefix))

    # the version reads -----------------------------------------------------------------

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        if not self._behind(subject, attribute):
            return self._inner.get(subject, attribute, at, known_at)
        lone = self._lone(subject, attribute)
        if lone is not None:
            return lone.holding(at, known_at)
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

