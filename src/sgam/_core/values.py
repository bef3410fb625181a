"""JSON values as the ledger stores them: canonical text, so equality is exact.

Two values are equal when they are equal as JSON values: ``1`` equals ``1.0``, key order
does not matter, and ``true`` never equals ``1`` (Python's ``True == 1`` would say so).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

from .errors import ValidationError

MAX_VALUE_BYTES = 64 * 1024
MAX_TEXT_BYTES = 256 * 1024
MAX_METADATA_BYTES = 16 * 1024
MAX_NAME_LENGTH = 256
MAX_VALUE_DEPTH = 100
MAX_QUERY_LIMIT = 10_000
MAX_INTEGER = 2**63 - 1
"""The largest integer a column holds on both backends (SQLite's INTEGER, PostgreSQL's bigint)."""

_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}")
"""Matched whole (``fullmatch``): ``$`` would also match before a final newline."""
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 control characters and DEL: never part of a name, a tenant or a timestamp."""


def _encodable(value: str, field: str) -> str:
    """Text must be valid Unicode: a lone surrogate cannot be stored as UTF-8."""
    try:
        value.encode()
    except UnicodeEncodeError:
        raise ValidationError(field, value, "must be valid Unicode (no lone surrogates)") from None
    return value


def check_unicode(value: str, field: str) -> str:
    """Text every backend stores and every surface can send back: valid Unicode (a lone
    surrogate has no UTF-8) without NUL (PostgreSQL's text and jsonb refuse it; SQLite
    would keep it, so both refuse it and a value means the same on either)."""
    if "\x00" in _encodable(value, field):
        raise ValidationError(field, value, "must not contain NUL characters")
    return value


def storable_text(text: str) -> str:
    """Text from outside as it can be kept for inspection: a lone surrogate (no database
    stores it as UTF-8) and NUL (PostgreSQL text cannot hold it) become their backslash
    escapes; any other text is unchanged."""
    try:
        text.encode()
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode()
    return text.replace("\x00", "\\x00")


class _Budget:
    """Bytes a value may still take: every node costs at least its own text, so the walk
    stops as soon as a value must be larger than allowed, not after reading all of it."""

    __slots__ = ("left",)

    def __init__(self, limit: int) -> None:
        self.left = limit

    def spend(self, cost: int, path: str, limit: int) -> None:
        self.left -= cost
        if self.left < 0:
            raise ValidationError(path, "<value>", f"larger than {limit} bytes")


def _normalise(value: Any, path: str, budget: _Budget, limit: int, depth: int = 0) -> Any:
    if depth > MAX_VALUE_DEPTH:
        raise ValidationError(path, "<nested value>", f"nested deeper than {MAX_VALUE_DEPTH} levels")
    if isinstance(value, str):
        budget.spend(len(value) + 2, path, limit)
        return check_unicode(value, path)
    budget.spend(1, path, limit)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValidationError(path, value, "numbers must be finite JSON numbers")
        if value.is_integer():
            return int(value)  # exact: an integral float is that integer, however large
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValidationError(path, key, "object keys must be strings")
            budget.spend(len(key) + 3, path, limit)
            checked = check_unicode(key, path)  # before the item, whose errors name the key
            out[checked] = _normalise(item, f"{path}.{key[:40]}", budget, limit, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_normalise(item, f"{path}[{index}]", budget, limit, depth + 1) for index, item in enumerate(value)]
    if isinstance(value, datetime):
        raise ValidationError(path, value, "is not a JSON value: give a datetime as RFC 3339 text with a zone, "
                                           "e.g. \"2026-07-15T09:00:00Z\" (value.isoformat() of an aware datetime)")
    if isinstance(value, date):
        raise ValidationError(path, value, "is not a JSON value: give a date as text YYYY-MM-DD, "
                                           "e.g. \"2026-07-15\" (value.isoformat())")
    raise ValidationError(path, value, f"is not a JSON value ({type(value).__name__})")


def canonical_json(value: Any, field: str = "value", limit: int = MAX_VALUE_BYTES) -> str:
    """Validate a JSON value and return its canonical text (sorted keys, no spaces).

    Bounded: at most ``MAX_VALUE_DEPTH`` levels and ``limit`` bytes, checked while
    walking, so a huge or deep value costs no more than the limit before it is refused."""
    if type(value) is str and len(value) <= (limit - 2) // 6:  # fits however it escapes: the common case
        return json.dumps(check_unicode(value, field), ensure_ascii=False)
    normalised = _normalise(value, field, _Budget(limit), limit)
    try:
        text = json.dumps(normalised, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError:  # an integer past Python's int-to-text limit (4300 digits)
        raise ValidationError(field, "<huge number>", "has a number too large to write as JSON") from None
    if len(text.encode()) > limit:
        raise ValidationError(field, f"<{len(text.encode())} bytes>", f"larger than {limit} bytes")
    return text


def load_value(text: str) -> Any:
    """A stored value (canonical JSON). Most values are strings without escapes, whose
    content is the text between the quotes: that skips the parser on every read."""
    if text[0] == '"' and "\\" not in text:
        return text[1:-1]
    return json.loads(text)


def check_tenant(tenant: object) -> str:
    if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
        raise ValidationError(
            "tenant",
            tenant,
            "must be 1-128 characters of letters, digits and _ . : @ - starting with a letter or digit",
        )
    return tenant


def check_name(value: object, field: str) -> str:
    """Subjects, attributes, episode ids: non-empty printable text of bounded length."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, value, "must be a non-empty string")
    if len(value) > MAX_NAME_LENGTH:
        raise ValidationError(field, value, f"longer than {MAX_NAME_LENGTH} characters")
    if CONTROL.search(value):
        raise ValidationError(field, value, "must not contain control characters")
    return _encodable(value, field)


def normalise_subject(text: str) -> str:
    """A subject id as sgam matches it: Unicode NFKC, then case folding, then outer white
    space removed and every inner run of white space read as one space. ``Mira``,
    `` mira `` and ``MIRA`` name one subject."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


_INVISIBLE = frozenset({"Cf"})
"""Unicode format characters (zero-width space and joiners, bidi marks, embeddings,
overrides and isolates, soft hyphen): invisible, so a subject id holding one would be a
subject apart that reads as another (NFKC keeps them)."""


def check_subject(value: object, field: str = "subject") -> str:
    """``check_name``, then the normalised id (``normalise_subject``), itself a name."""
    normalised = normalise_subject(check_name(value, field))
    if not normalised:
        raise ValidationError(field, value, "must be a non-empty string")
    if len(normalised) > MAX_NAME_LENGTH:
        raise ValidationError(field, value, f"longer than {MAX_NAME_LENGTH} characters once normalised")
    if CONTROL.search(normalised):
        raise ValidationError(field, value, "must not contain control characters once normalised")
    if any(unicodedata.category(char) in _INVISIBLE for char in normalised):
        raise ValidationError(field, value, "must not contain invisible format characters (zero-width, bidi "
                                            "controls, soft hyphen): they would make a second subject that "
                                            "looks like the first")
    return normalised


def check_optional_subject(value: object, field: str = "subject") -> str | None:
    return None if value is None else check_subject(value, field)


def check_optional_name(value: object, field: str) -> str | None:
    """``check_name`` for the optional filters and fields: None passes through."""
    return None if value is None else check_name(value, field)


def check_text(value: object, field: str, limit: int = MAX_TEXT_BYTES) -> str:
    if not isinstance(value, str):
        raise ValidationError(field, value, "must be a string")
    if len(_encodable(value, field).encode()) > limit:
        raise ValidationError(field, f"<{len(value.encode())} bytes>", f"larger than {limit} bytes")
    return check_unicode(value, field)


def check_integer(value: object, field: str, minimum: int, rule: str) -> int:
    """An integer argument that reaches the store: not a bool, at least ``minimum`` and
    at most ``MAX_INTEGER`` (SQLite cannot even bind a larger one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_INTEGER:
        raise ValidationError(field, value, rule)
    return value


def check_confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError("confidence", value, "must be a number from 0 to 1")
    if not 0 <= value <= 1:  # compared before float(): a huge int would overflow it
        raise ValidationError("confidence", value, "must be a number from 0 to 1")
    return float(value)


def check_limit(limit: int, field: str = "limit") -> int:
    """How many results a call may ask for: an integer from 1 to ``MAX_QUERY_LIMIT``."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_QUERY_LIMIT:
        raise ValidationError(field, limit, f"must be an integer from 1 to {MAX_QUERY_LIMIT}")
    return limit


MAX_BATCH = 100_000
"""The most entries one batch call (``write_many``, ``add_episodes``) takes."""


def check_batch(items: object, field: str) -> Iterable[Any]:
    """``items`` as a batch call takes them: any iterable of entries, but not one entry
    (a string, bytes or a mapping) passed where a list was meant."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise ValidationError(field, items, "must be a list (any iterable) of entries")
    return items
