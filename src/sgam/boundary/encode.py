"""Result → JSON: the one encoding of sgam's records on every surface."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel

from .._core.time import format_timestamp

_PLAIN = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}
"""The field names of each record class met so far (``dataclasses.fields`` per value is
the slowest step of encoding a record)."""


def to_json(value: Any) -> Any:
    """``value`` as plain JSON data: records become objects, timestamps RFC 3339 UTC
    strings, enums their value; the keys of a record are its field names."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:
        return {str(k): to_json(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [to_json(v) for v in value]
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return to_json(value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def _unknown(value: Any) -> Any:
    """An object ``to_json`` has no encoding for, met inside data a caller stored (a
    LangGraph state value of the caller's own type): its ``repr``, so an answer is never
    refused for one value."""
    encoded = to_json(value)
    return repr(value) if encoded is value else encoded


def to_json_data(value: Any) -> Any:
    """``value`` as JSON data whatever it holds: ``to_json``, with ``repr`` for objects
    of types it does not know (stored values of a caller's own types)."""
    return json.loads(json.dumps(to_json(value), ensure_ascii=False, default=_unknown))


def dumps(value: Any, *, indent: int | None = None) -> str:
    """``to_json(value)`` as text (UTF-8 left as is, not escaped)."""
    return json.dumps(to_json(value), ensure_ascii=False, indent=indent)
