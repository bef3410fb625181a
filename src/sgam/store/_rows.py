"""Column lists and row-to-record conversions that every backend shares.

Backends own their SQL, but they select the same columns in the same order, so turning a
row into a ``Version``, ``Operation`` or schema record is written once, here.
"""

from __future__ import annotations

import json
from typing import Any

from .._core.rules import Operation, OpKind, Version
from .._core.schema import AttributeSchema, Cardinality, MemoryTypeSchema, ValueType

VERSION_COLUMNS = (
    "row_id, assertion_id, subject, attribute, value, memory_type, valid_from, valid_to, "
    "recorded_from, recorded_to, source, confidence, schema_version, supersedes, origin, closed_by"
)
EPISODE_COLUMNS = (
    "tenant, episode_id, occurred_at, recorded_at, text, speaker, kind, session, metadata, schema_version, "
    "retention, lost_at"
)
OPERATION_COLUMNS = (
    "seq, subject, attribute, kind, valid_at, value, source, recorded_at, memory_type, "
    "confidence, schema_version, expires_at"
)
ATTRIBUTE_SCHEMA_COLUMNS = (
    "attribute, value_type, memory_type, sensitive, description, schema_version, cardinality, renamed_to"
)
MEMORY_TYPE_COLUMNS = "name, json_schema, schema_version"
EXTRACTION_COLUMNS = (
    "tenant, episode_id, attempt, recorded_at, status, error, model, raw_reply, prompt_tokens, "
    "completion_tokens, latency_ms, decisions, seq"
)
HELD_COLUMNS = (
    "tenant, episode_id, hold, status, subject, attribute, change, value, valid_from, confidence, "
    "stated, evidence, created_at, resolved_at, seq"
)
JOB_COLUMNS = "tenant, episode_id, status, enqueued_at, attempts, lease_owner, lease_expires, last_error, seq"


def version_columns_of(alias: str) -> str:
    """``VERSION_COLUMNS`` of the table named ``alias`` in a join."""
    return ", ".join(f"{alias}.{column.strip()}" for column in VERSION_COLUMNS.split(","))


_OP_KINDS: dict[str, OpKind] = {kind.value: kind for kind in OpKind}


def version_from_row(row: tuple[Any, ...]) -> Version:
    """A ``VERSION_COLUMNS`` row. Positional, with the enum from a dict: this runs once
    per row on every read path."""
    return Version(
        row[1], row[2], row[3], row[4], row[6], row[7], row[8], row[9], row[10], row[5],
        row[11], row[12], row[13], _OP_KINDS[row[14]], row[15], row[0],
    )


def operation_from_row(row: tuple[Any, ...]) -> Operation:
    """An ``OPERATION_COLUMNS`` row."""
    return Operation(
        seq=row[0], subject=row[1], attribute=row[2], kind=_OP_KINDS[row[3]], valid_at=row[4],
        value=row[5], source=row[6], recorded_at=row[7], memory_type=row[8],
        confidence=row[9], schema_version=row[10], expires_at=row[11],
    )


def attribute_schema_from_row(row: tuple[Any, ...]) -> AttributeSchema:
    """An ``ATTRIBUTE_SCHEMA_COLUMNS`` row."""
    return AttributeSchema(row[0], ValueType(row[1]) if row[1] else None, row[2], bool(row[3]), row[4], row[5],
                           Cardinality(row[6]), row[7])


def memory_type_from_row(row: tuple[Any, ...]) -> MemoryTypeSchema:
    """A ``MEMORY_TYPE_COLUMNS`` row; the JSON Schema is stored as text."""
    return MemoryTypeSchema(row[0], json.loads(row[1]) if row[1] else None, row[2])
