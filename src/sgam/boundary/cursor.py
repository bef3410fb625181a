"""Opaque paging cursors: the position after the last result of a page.

A cursor is URL-safe base64 of a small versioned JSON array, so it travels in a query
string or a tool argument unchanged. Callers must not build or read one; sgam checks
every cursor it decodes and refuses a malformed one as a ``ValidationError``.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from .._core.errors import ValidationError
from .._core.values import MAX_INTEGER

CURSOR_VERSION = 1
MAX_CURSOR_CHARS = 4096


def encode_cursor(*position: str | int) -> str:
    """A cursor for ``position`` (strings and integers, e.g. subject, attribute, start)."""
    raw = json.dumps([CURSOR_VERSION, *position], ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: Any, shape: tuple[type, ...], field: str = "cursor") -> tuple[Any, ...]:
    """The position in ``cursor``, checked against ``shape`` (one type per element)."""
    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise ValidationError(field, cursor, "must be a cursor returned by a previous page")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw.decode())
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValidationError(field, cursor, "must be a cursor returned by a previous page") from None
    if (
        not isinstance(data, list) or len(data) != len(shape) + 1 or data[0] != CURSOR_VERSION
        or not all(type(item) is kind for item, kind in zip(data[1:], shape, strict=True))
        or any(type(item) is int and abs(item) > MAX_INTEGER for item in data[1:])  # forged: no column holds it
    ):
        raise ValidationError(field, cursor, "must be a cursor returned by a previous page")
    return tuple(data[1:])
