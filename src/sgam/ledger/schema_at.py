"""An attribute's declared shape as it stood at a read's ``known_at``.

A read with an earlier ``known_at`` answers in the shape that held then ("what did we
believe before the migration?"), so every check it makes of the schema (value type,
cardinality, whether the attribute is a relation) is made of that shape, not of today's:
a ``value`` read before a one -> many step answers the one value, a ``linked`` read
before a retype away from ``subject`` follows the relation. The declared schema is the
shape after every step; the recorded steps (``ledger_changes``) taken after ``known_at``
are undone, newest first, from what each of them recorded it changed from.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Protocol

from .._core.schema import AttributeSchema, Cardinality, ValueType
from ..store import ChangeRow


class ShapeReads(Protocol):
    def declared(self, attribute: str) -> AttributeSchema | None: ...
    def ledger_changes(self) -> list[ChangeRow]: ...


def schema_at(reader: ShapeReads, attribute: str, known_at: int | None) -> AttributeSchema | None:
    """``attribute``'s schema at ``known_at`` (default now); ``attribute`` is the name it
    had then (renames already followed to that instant). None: never declared, and no
    step had given it a shape by then."""
    declared = reader.declared(attribute)
    if known_at is None:
        return declared
    shape = declared
    for change in reversed(reader.ledger_changes()):
        if change.recorded_at <= known_at:
            break
        if change.attribute == attribute:
            shape = _undone(shape or AttributeSchema(attribute, None), change)
        elif change.kind == "rename" and _made(change, attribute):
            shape = None  # the name came into being with the rename
    return shape


def _made(rename: ChangeRow, attribute: str) -> bool:
    """Whether ``rename`` gave ``attribute`` its first declaration (it was not declared)."""
    detail = json.loads(rename.detail)
    return bool(detail.get("to") == attribute and detail.get("to_cardinality") is None)


def _undone(shape: AttributeSchema, change: ChangeRow) -> AttributeSchema:
    """``shape`` as it was before ``change``."""
    detail = json.loads(change.detail)
    if change.kind == "cardinality" and "from_cardinality" in detail:
        return replace(shape, cardinality=Cardinality(detail["from_cardinality"]))
    if change.kind == "retype" and "type" in detail and "from_type" in detail:
        before = detail["from_type"]
        return replace(shape, value_type=None if before is None else ValueType(before))
    if change.kind == "rename":
        return replace(shape, renamed_to=None)
    return shape


def cardinality_at(reader: ShapeReads, attribute: str, known_at: int | None) -> Cardinality:
    """The attribute's cardinality at ``known_at`` (one when it had none declared)."""
    shape = schema_at(reader, attribute, known_at)
    return Cardinality.ONE if shape is None else shape.cardinality
