"""Storage rows to the public records ``Memory`` returns (attributes split from their
purpose, times from microseconds)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ._model import Assertion, Episode
from ._purpose import split_attribute
from ._rules import Version
from ._time import from_micros
from ._values import load_value
from ._write import load_metadata
from .store import EpisodeRow, LifecycleReads

_ASSERTION_SLOTS = tuple(getattr(Assertion, field.name).__set__ for field in fields(Assertion))


def _assertion(*values: Any) -> Assertion:
    """``Assertion(*values)`` without the frozen dataclass's ``object.__setattr__`` per
    field, which costs as much as the rest of a point read's conversion: each slot's own
    setter, in field order (every field, so nothing is left unset)."""
    made = object.__new__(Assertion)
    for assign, value in zip(_ASSERTION_SLOTS, values, strict=True):
        assign(made, value)
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


