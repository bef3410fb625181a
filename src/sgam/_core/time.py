"""Timestamps: zone-aware only, stored as integer microseconds since the Unix epoch (UTC).

Integers make every comparison in SQL and Python exact and independent of string
formats; the API speaks ``datetime`` in UTC.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone

from .errors import ValidationError
from .values import CONTROL

Clock = Callable[[], datetime]
Moment = datetime | str
"""An instant as a datetime or an RFC 3339 string (``Z`` or an offset)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Matched whole (``fullmatch``): ``$`` would also match before a final newline.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})",
    re.ASCII,  # RFC 3339 digits are ASCII: "٢٠٢٦" is not a year
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_NO_ZONE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[Tt ][\d:.]+)?", re.ASCII)


def utc_now() -> datetime:
    return datetime.now(UTC)


def parse_timestamp(value: object, field: str) -> datetime:
    """Accept an aware ``datetime`` or an RFC 3339 string with a zone; return it in UTC.

    Sub-microsecond digits are truncated: the ledger keeps microseconds.
    """
    if isinstance(value, datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            raise ValidationError(field, value, "timestamp needs a zone (e.g. Z or +02:00)")
        return _in_utc(value, field)
    if not isinstance(value, str):
        raise ValidationError(field, value, "must be an RFC 3339 timestamp string")
    if CONTROL.search(value):
        raise ValidationError(field, value, "must not contain control characters (a line break, a tab)")
    if value != value.strip():
        raise ValidationError(field, value, "must not start or end with spaces")
    match = _RFC3339.fullmatch(value)
    if match is None:
        if _NO_ZONE.fullmatch(value):
            raise ValidationError(field, value, "timestamp needs a zone (e.g. Z or +02:00)")
        raise ValidationError(field, value, "must be an RFC 3339 timestamp with a zone")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    if zone in ("Z", "z"):
        tz = UTC
    else:
        sign = 1 if zone[0] == "+" else -1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            raise ValidationError(field, value, "zone offset out of range")
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        parsed = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micros, tzinfo=tz
        )
    except ValueError as exc:
        raise ValidationError(field, value, f"not a real instant ({exc})") from None
    return _in_utc(parsed, field)


def _in_utc(moment: datetime, field: str) -> datetime:
    """Convert to UTC; an instant whose UTC form falls outside years 1-9999 is refused
    (``0001-01-01T00:00:00+01:00`` is in year 0 in UTC)."""
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValidationError(field, moment, "outside the years 1-9999 in UTC") from None


def to_micros(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(0, 0, micros)  # positional: the keyword form is slower


def optional_micros(value: object, field: str) -> int | None:
    return None if value is None else to_micros(parse_timestamp(value, field))


def format_timestamp(moment: datetime) -> str:
    """RFC 3339 in UTC with microseconds, the form every answer uses."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def is_iso_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def is_rfc3339(value: str) -> bool:
    try:
        parse_timestamp(value, "value")
    except ValidationError:
        return False
    return True


def moment_micros(clock: Clock, value: object | None, field: str) -> int:
    """``value`` in microseconds, or the clock's now when it is None."""
    return to_micros(clock() if value is None else parse_timestamp(value, field))
