"""Retention classes: how long data of a class is kept after it was recorded, and what
its expiry does (``erase`` everything, or ``keep_facts`` and drop the text).

Durations are ISO 8601 in days, hours, minutes and seconds only (``P30D``, ``PT12H``,
``P1DT6H30M``): months and years have no fixed length, and a deadline must be exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .errors import ValidationError
from .time import from_micros
from .values import check_name

DEFAULT_CLASS = "default"
ON_EXPIRY = ("erase", "keep_facts")
MAX_TTL_DAYS = 1_000_000
_SECOND = 1_000_000
_DURATION = re.compile(
    r"^P(?:(?P<d>\d+)D)?(?:T(?=\d)(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d{1,6})?)S)?)?$", re.ASCII
)


@dataclass(frozen=True, slots=True)
class RetentionClass:
    """A tenant's retention class; ``ttl`` None keeps data until it is erased."""

    name: str
    ttl: timedelta | None
    on_expiry: str
    declared_at: datetime | None
    """None for the implicit ``default`` class that the tenant never declared."""

    @property
    def ttl_iso(self) -> str | None:
        return None if self.ttl is None else format_ttl(round(self.ttl / timedelta(microseconds=1)))


def implicit_default() -> RetentionClass:
    return RetentionClass(DEFAULT_CLASS, None, "erase", None)


def retention_class(name: str, ttl: int | None, on_expiry: str, declared_at: int | None) -> RetentionClass:
    return RetentionClass(
        name, None if ttl is None else timedelta(microseconds=ttl), on_expiry,
        None if declared_at is None else from_micros(declared_at),
    )


def check_class_name(value: object, field: str = "class") -> str:
    return check_name(value, field)


def parse_ttl(value: object, field: str = "ttl") -> int | None:
    """A positive duration in microseconds, or None (keep until erased)."""
    if value is None:
        return None
    if isinstance(value, timedelta):
        micros = round(value / timedelta(microseconds=1))
    elif isinstance(value, str):
        match = _DURATION.match(value.strip())
        if match is None or not any(match.groupdict().values()):
            raise ValidationError(
                field, value, "must be an ISO 8601 duration in days, hours, minutes and seconds (P30D, PT12H, "
                "P1DT6H30M) or null",
            )
        days, hours, minutes = (int(match.group(k) or 0) for k in ("d", "h", "m"))
        seconds = match.group("s") or "0"
        whole, _, fraction = seconds.partition(".")
        if days > MAX_TTL_DAYS or hours > MAX_TTL_DAYS * 24 or minutes > MAX_TTL_DAYS * 1440 \
                or int(whole) > MAX_TTL_DAYS * 86_400:
            raise ValidationError(field, value, f"must be at most {MAX_TTL_DAYS} days")
        micros = (((days * 24 + hours) * 60 + minutes) * 60 + int(whole)) * _SECOND + int(fraction.ljust(6, "0"))
    else:
        raise ValidationError(field, value, "must be an ISO 8601 duration string (e.g. P30D) or null")
    if micros <= 0:
        raise ValidationError(field, value, "must be a positive duration")
    if micros > MAX_TTL_DAYS * 86_400 * _SECOND:
        raise ValidationError(field, value, f"must be at most {MAX_TTL_DAYS} days")
    return micros


def format_ttl(micros: int) -> str:
    """The canonical ISO 8601 form of a duration: ``P1DT6H30M``."""
    seconds, fraction = divmod(micros, _SECOND)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    time = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    if seconds or fraction:
        time += f"{seconds}.{fraction:06d}".rstrip("0").rstrip(".") + "S"
    return "P" + (f"{days}D" if days else "") + (f"T{time}" if time else "")


def check_on_expiry(value: object) -> str:
    if value not in ON_EXPIRY:
        raise ValidationError("on_expiry", value, "must be erase or keep_facts")
    return str(value)
