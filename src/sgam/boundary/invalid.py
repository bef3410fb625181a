"""Pydantic's complaints about a request's fields, said as one sgam validation error.

HTTP bodies and query strings and MCP tool arguments are checked by pydantic before sgam
sees them. Its messages are written for Python programmers ("Input should be a valid
string", Python reprs such as ``None`` or ``b'...'``, links to its documentation); a caller
of a JSON API needs to read, in words, every field that was wrong and what it held,
with values named as JSON names them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._core.errors import SHOWN_LENGTH, InvalidFields

_EXPECTED = {
    "string_type": "must be a string", "string_sub_type": "must be a string",
    "int_type": "must be an integer", "int_parsing": "must be an integer", "int_from_float": "must be an integer",
    "float_type": "must be a number", "float_parsing": "must be a number",
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "dict_type": "must be a JSON object", "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object", "list_type": "must be an array",
    "none_required": "must be null",
}
_BOUNDS = {
    "greater_than_equal": ("ge", "must be at least {}"), "greater_than": ("gt", "must be more than {}"),
    "less_than_equal": ("le", "must be at most {}"), "less_than": ("lt", "must be less than {}"),
    "string_too_short": ("min_length", "must have at least {} characters"),
    "string_too_long": ("max_length", "must have at most {} characters"),
    "too_short": ("min_length", "must have at least {} items"),
    "too_long": ("max_length", "must have at most {} items"),
}


def described(value: object) -> str:
    """``value`` as a caller who sent JSON would name it: null, true, the number 3, the
    string "x" (shortened), an object, an array."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        shown = text if len(text) <= SHOWN_LENGTH else text[: SHOWN_LENGTH - 4] + '..."'
        return f"the string {shown}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, (bytes, bytearray)):
        return "raw bytes"
    return "a value of another kind"


def _rule(error: Mapping[str, Any]) -> str:
    kind = str(error.get("type", ""))
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a field of this request"
    context: Mapping[str, Any] = error.get("ctx") or {}
    if kind == "literal_error" and "expected" in context:
        return f"must be one of {context['expected']}, not {described(error.get('input'))}"
    if kind in _BOUNDS:
        name, text = _BOUNDS[kind]
        return f"{text.format(context.get(name))}, not {described(error.get('input'))}"
    if isinstance(error.get("input"), (bytes, bytearray)):
        return "must be a JSON object, sent as Content-Type: application/json"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, not {described(error.get('input'))}"
    message = str(error.get("msg", "is not valid"))
    message = message.removeprefix("Value error, ").replace("Input should be", "must be")
    return f"{message[:1].lower()}{message[1:]}, not {described(error.get('input'))}"


def invalid_fields(errors: Iterable[Mapping[str, Any]], *, sections: tuple[str, ...] = ()) -> InvalidFields:
    """One error naming every field in ``errors`` (pydantic's ``errors()``), the first
    complaint of each. ``sections`` are leading location parts that say where a field
    travelled (``body``, ``query``) rather than which field it is."""
    problems: dict[str, str] = {}
    for error in errors:
        location = [str(part) for part in error.get("loc", ())]
        if location and location[0] in sections:
            location = location[1:]
        field = location[0] if location else "body"  # deeper parts name a union's arms
        problems.setdefault(field, _rule(error))
    return InvalidFields(list(problems.items()) or [("body", "is not valid")])
