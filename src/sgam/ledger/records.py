"""Storage rows to the public records ``Memory`` returns (attributes split from their
purpose, times from microseconds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any

from .._core.model import Assertion, Episode
from .._core.purpose import MEMBER, split_attribute
from .._core.rules import Version
from .._core.time import from_micros
from .._core.values import load_value
from ..store import EpisodeRow, LifecycleReads
from .write import load_metadata

_FIELDS = ("id", "tenant", "subject", "attribute", "value", "memory_type", "valid_from", "valid_to", "recorded_at",
           "superseded_at", "source", "confidence", "schema_version", "supersedes", "origin", "closed_by", "purpose")
if _FIELDS != tuple(field.name for field in fields(Assertion)):  # pragma: no cover - caught by any import
    raise ImportError("sgam.ledger.records names Assertion's fields out of order")
(_id, _tenant, _subject, _attribute, _value, _memory_type, _valid_from, _valid_to, _recorded_at, _superseded_at,
 _source, _confidence, _schema_version, _supersedes, _origin, _closed_by, _purpose) = (
    getattr(Assertion, name).__set__ for name in _FIELDS)
_new = object.__new__


def _assertion(
    id: int, tenant: str, subject: str, attribute: str, value: Any, memory_type: str, valid_from: datetime,
    valid_to: datetime | None, recorded_at: datetime, superseded_at: datetime | None, source: str,
    confidence: float, schema_version: int, supersedes: int | None, origin: str, closed_by: str | None,
    purpose: str | None,
) -> Assertion:
    """``Assertion(...)`` without the frozen dataclass's ``object.__setattr__`` per field,
    which costs as much as the rest of a point read's conversion: each slot's own setter,
    called by name rather than in a loop (a loop over the setters costs four times as
    much), every field set."""
    made: Assertion = _new(Assertion)
    _id(made, id)
    _tenant(made, tenant)
    _subject(made, subject)
    _attribute(made, attribute)
    _value(made, value)
    _memory_type(made, memory_type)
    _valid_from(made, valid_from)
    _valid_to(made, valid_to)
    _recorded_at(made, recorded_at)
    _superseded_at(made, superseded_at)
    _source(made, source)
    _confidence(made, confidence)
    _schema_version(made, schema_version)
    _supersedes(made, supersedes)
    _origin(made, origin)
    _closed_by(made, closed_by)
    _purpose(made, purpose)
    return made


def to_assertion(tenant: str, version: Version) -> Assertion:
    attribute, purpose = split_attribute(version.attribute)
    return _assertion(
        version.assertion_id, tenant, version.subject, attribute, load_value(version.value), version.memory_type,
        from_micros(version.valid_from), None if version.valid_to is None else from_micros(version.valid_to),
        from_micros(version.recorded_from), None if version.recorded_to is None else from_micros(version.recorded_to),
        version.source, version.confidence, version.schema_version, version.supersedes, version.origin.value,
        version.closed_by, purpose,
    )


def to_assertions(tenant: str, versions: Sequence[Version]) -> list[Assertion]:
    """``to_assertion`` of each version. The versions of one answer (a set's members, a
    page) share their attribute and mostly their instants: each distinct one is split or
    converted once."""
    names: dict[str, tuple[str, str | None]] = {}
    times: dict[int, datetime] = {}

    def at(micros: int) -> datetime:
        found = times.get(micros)
        if found is None:
            found = times[micros] = from_micros(micros)
        return found

    made: list[Assertion] = []
    for version in versions:
        timeline = version.attribute.partition(MEMBER)[0]
        split = names.get(timeline)
        if split is None:
            split = names[timeline] = split_attribute(timeline)
        made.append(_assertion(
            version.assertion_id, tenant, version.subject, split[0], load_value(version.value), version.memory_type,
            at(version.valid_from), None if version.valid_to is None else at(version.valid_to),
            at(version.recorded_from), None if version.recorded_to is None else at(version.recorded_to),
            version.source, version.confidence, version.schema_version, version.supersedes, version.origin.value,
            version.closed_by, split[1],
        ))
    return made


def to_episode(row: EpisodeRow, derived_from: tuple[str, ...] = ()) -> Episode:
    return Episode(
        tenant=row.tenant, id=row.episode_id, at=from_micros(row.occurred_at), text=row.text,
        recorded_at=from_micros(row.recorded_at), speaker=row.speaker, kind=row.kind,
        session=row.session, metadata=load_metadata(row.metadata), schema_version=row.schema_version,
        retention=row.retention, derived_from=derived_from,
    )


def sources_of(reader: LifecycleReads, rows: list[EpisodeRow]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for derived, source in reader.derivations([row.episode_id for row in rows]):
        found.setdefault(derived, []).append(source)
    return {key: tuple(sorted(value)) for key, value in found.items()}


