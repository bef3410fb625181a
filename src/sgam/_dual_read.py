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

from collections.abc import Sequence
from typing import Any, cast

from ._backfill import behind, family_of
from ._derivation import Key, alias_family, derive_subjects
from ._rules import Version, as_last_seen, ended_all
from .store import BackfillRow, QueryFilter, Reader


def _visible(version: Version, known_at: int | None) -> bool:
    if known_at is None:
        return version.recorded_to is None
    return version.recorded_from <= known_at and (version.recorded_to is None or known_at < version.recorded_to)


def _timeline(versions: list[Version], known_at: int | None) -> list[Version]:
    """The versions visible at ``known_at``, by ``valid_from``, each ended by the next."""
    return ended_all(sorted((v for v in versions if _visible(v, known_at)), key=lambda v: v.valid_from))


def _holding(versions: list[Version], at: int, known_at: int | None) -> Version | None:
    found = [v for v in _timeline(versions, known_at) if v.valid_from <= at]
    return found[-1] if found and found[-1].holds_at(at) else None


def _in_range(attribute: str, prefix: str) -> bool:
    return attribute.startswith(prefix)


class DualReader:
    """A ``Reader`` whose version reads of a key an unfinished backfill has not reached
    answer from its derivation; every other call goes to the reader it wraps."""

    def __init__(self, inner: Reader, rows: list[BackfillRow]) -> None:
        self._inner = inner
        self._rows = rows
        self._derived: dict[str, dict[Key, list[Version]]] = {}

    @classmethod
    def around(cls, reader: Reader) -> Reader:
        """``reader`` itself while its tenant has no unfinished backfill (most tenants)."""
        rows = reader.unfinished_backfills()
        return reader if not rows else cast(Reader, cls(reader, rows))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _behind(self, subject: str, attribute: str) -> bool:
        return behind(self._rows, subject, attribute)

    def _keys(self, subject: str) -> dict[Key, list[Version]]:
        """Every key of the subject under the unfinished steps' attributes, derived."""
        if subject not in self._derived:
            family = {name for row in self._rows for name in family_of(row)}
            names = alias_family(self._inner.alias_steps(), [subject])
            derivation = derive_subjects(self._inner, self._inner.declared, names, family)
            self._derived[subject] = {key: versions for key, versions in derivation.versions().items()
                                      if key[0] == subject}
        return self._derived[subject]

    def _key(self, subject: str, attribute: str) -> list[Version]:
        return self._keys(subject).get((subject, attribute), [])

    def _member_keys(self, subject: str, prefix: str) -> list[str]:
        return sorted(attribute for (_, attribute), versions in self._keys(subject).items()
                      if versions and _in_range(attribute, prefix))

    # the version reads -----------------------------------------------------------------

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        if not self._behind(subject, attribute):
            return self._inner.get(subject, attribute, at, known_at)
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

