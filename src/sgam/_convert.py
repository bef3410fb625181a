"""Storage rows to the public records ``Memory`` returns (attributes split from their
purpose, times from microseconds)."""

from __future__ import annotations

from ._model import Assertion, Episode
from ._purpose import split_attribute
from ._rules import Version
from ._time import from_micros
from ._values import load_value
from ._write import load_metadata
from .store import EpisodeRow, LifecycleReads


def to_assertion(tenant: str, version: Version) -> Assertion:
    attribute, purpose = split_attribute(version.attribute)
    return Assertion(
        id=version.assertion_id,
        tenant=tenant,
        subject=version.subject,
        attribute=attribute,
        value=load_value(version.value),
        memory_type=version.memory_type,
        valid_from=from_micros(version.valid_from),
        valid_to=None if version.valid_to is None else from_micros(version.valid_to),
        recorded_at=from_micros(version.recorded_from),
        superseded_at=None if version.recorded_to is None else from_micros(version.recorded_to),
        source=version.source,
        confidence=version.confidence,
        schema_version=version.schema_version,
        supersedes=version.supersedes,
        origin=version.origin.value,
        closed_by=version.closed_by,
        purpose=purpose,
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


