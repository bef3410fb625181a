"""Per-tenant schemas: declared value types of attributes and typed memory types.

Validation happens in the write service, before any backend call, so a malformed write
never reaches the database. Every change to a tenant's schema bumps its version, and
every operation records the version it was checked against.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from .errors import ValidationError
from .time import is_iso_date, is_rfc3339
from .values import canonical_json, check_subject


class ValueType(enum.StrEnum):
    """The value types an attribute may declare (replay format 1)."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    DATE = "date"
    DATETIME = "datetime"
    OBJECT = "object"
    ARRAY = "array"
    SUBJECT = "subject"
    """A relation: the value names a subject of the tenant, matched like a subject id."""


class Cardinality(enum.StrEnum):
    """How many values an attribute holds at one instant: one, or a set of members."""

    ONE = "one"
    MANY = "many"


def parse_cardinality(value: object) -> Cardinality:
    try:
        return Cardinality(str(value))
    except ValueError:
        raise ValidationError("cardinality", value, "must be one or many") from None


BUILTIN_MEMORY_TYPES = ("fact", "preference", "task", "decision", "lesson", "event", "profile")
DEFAULT_MEMORY_TYPE = "fact"


@dataclass(frozen=True, slots=True)
class AttributeSchema:
    """What a tenant declared about one attribute."""

    attribute: str
    value_type: ValueType | None
    memory_type: str | None = None
    sensitive: bool = False
    description: str | None = None
    schema_version: int = 0
    cardinality: Cardinality = Cardinality.ONE
    renamed_to: str | None = None
    """The attribute this name was renamed to (a migration): steps and reads naming it
    mean that one."""
    not_of_type: int = 0
    """In the answer to a declaration only: how many stored values of the attribute are
    not of ``value_type``. A declaration converts nothing (reads answer them as stored);
    a ``retype`` converts them."""
    note: str | None = None
    """In the answer to a declaration only: what to do about ``not_of_type``."""


@dataclass(frozen=True, slots=True)
class MemoryTypeSchema:
    """A named memory type whose values follow a JSON Schema (from a Pydantic model)."""

    name: str
    json_schema: dict[str, Any] | None
    schema_version: int = 0


def check_value_type(value: Any, value_type: ValueType | None, field: str = "value") -> None:
    if value is None:
        raise ValidationError(field, value, "must not be null (retract instead)")
    if value_type is None:
        return
    ok: bool
    if value_type is ValueType.STRING:
        ok = isinstance(value, str)
    elif value_type is ValueType.INTEGER:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if isinstance(value, float) and value.is_integer():
            ok = True
    elif value_type is ValueType.NUMBER:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif value_type is ValueType.BOOLEAN:
        ok = isinstance(value, bool)
    elif value_type is ValueType.DATE:
        ok = isinstance(value, str) and is_iso_date(value)
    elif value_type is ValueType.DATETIME:
        ok = isinstance(value, str) and is_rfc3339(value)
    elif value_type is ValueType.OBJECT:
        ok = isinstance(value, dict)
    elif value_type is ValueType.SUBJECT:
        ok = isinstance(value, str) and bool(value.strip())
    else:
        ok = isinstance(value, list)
    if not ok:
        raise ValidationError(field, value, f"must be of declared type {value_type.value}{_hint(value, value_type)}")
    if value_type is ValueType.SUBJECT:
        check_subject(value, field)


def _hint(value: Any, value_type: ValueType) -> str:
    """How to write the value so it has the declared type, where that is clear."""
    if value_type is ValueType.STRING and isinstance(value, (bool, int, float)):
        text = json.dumps(json.dumps(value))
        return f"; give the text {text} (on the command line quote it as JSON: '{text}')"
    if value_type is ValueType.DATE:
        return "; give a date as text YYYY-MM-DD, e.g. \"2026-07-15\""
    if value_type is ValueType.SUBJECT:
        return " (a non-empty string: the id of a subject of the tenant)"
    if value_type is ValueType.DATETIME:
        return "; give an RFC 3339 timestamp with a zone as text, e.g. \"2026-07-15T09:00:00Z\""
    return ""


def parse_value_type(value: object) -> ValueType:
    try:
        return ValueType(str(value))
    except ValueError:
        allowed = ", ".join(t.value for t in ValueType)
        raise ValidationError("type", value, f"must be one of {allowed}") from None


@cache
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, as stored when it is registered (computed once per model)."""
    return model.model_json_schema()


def check_memory_value(
    value: Any, memory_type: MemoryTypeSchema, model: type[BaseModel] | None, text: str | None = None,
) -> None:
    """Check a value against its memory type: the Pydantic model when this process has it
    and it is the version stored (another process may have registered a newer one since),
    else the JSON Schema stored with the tenant's schema. ``text``: the value's canonical
    JSON, when the caller has it already."""
    field = f"value ({memory_type.name})"
    if model is not None and model_schema(model) == memory_type.json_schema:
        try:
            # strict, on the JSON text: the value is stored as given, so the model may
            # not coerce it ("41" or true for an int) into something the stored JSON
            # Schema, used by processes without the model, would refuse
            model.model_validate_json(canonical_json(value) if text is None else text, strict=True)
        except PydanticValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "value"
            raise ValidationError(f"value.{where}", first.get("input"), first["msg"]) from None
        return
    if memory_type.json_schema is None:
        return
    try:
        jsonschema.validate(value, memory_type.json_schema, format_checker=jsonschema.FormatChecker())
    except jsonschema.ValidationError as exc:
        where = ".".join(str(part) for part in exc.absolute_path) or field
        raise ValidationError(f"value.{where}" if exc.absolute_path else field, exc.instance, exc.message) from None
