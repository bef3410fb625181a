"""A key's bitemporal record drawn as SVG: valid time across, transaction time down.

Each version is one bar from ``valid_from`` to ``valid_to`` (an open end runs to the right
edge), on its own row in the order it was recorded, numbered ``v1``, ``v2``, ... (the
versions table uses the same numbers, so "replaces v2" names a row one can see). The axis
spans the versions' own valid times with a margin (reaching now only when now is near),
so months-old history is drawn as wide as yesterday's. Ticks fall on round instants (midnights, the
first of a month, whole hours). Pure geometry: the template only prints what this module
computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..._core.model import Assertion
from ..._core.retention import parse_ttl
from ..._core.time import from_micros, parse_timestamp, to_micros

WIDTH = 960
LABEL = 200
ROW = 34
TOP = 30
RIGHT = 10
MARGIN = 0.06
"""Room on each side of the data's span, as a share of it (more on the right for open ends)."""
OPEN_ROOM = 220
"""Pixels an open-ended bar gets at least, for its value and the "current" mark."""
MIN_SPAN = 3_600 * 1_000_000
"""A key whose versions all start at one instant is drawn over an hour around it."""
TARGET_TICKS = 5
NARROW = (360, 36, 150, 3, 14)
"""The phone-width drawing (width, row label, open room, ticks, characters of a bar's
value): drawn 1:1 on a 390 px screen, so its labels keep their size."""
WIDE = (WIDTH, LABEL, OPEN_ROOM, TARGET_TICKS, 40)

_SECOND = 1_000_000
_DAY = 86_400 * _SECOND
_STEPS = [s * _SECOND for s in (1, 5, 15, 30, 60, 300, 900, 1_800, 3_600, 3 * 3_600, 6 * 3_600, 12 * 3_600)] + \
         [d * _DAY for d in (1, 2, 7, 14)]
_MONTH_STEPS = (1, 2, 3, 6, 12, 24, 60, 120)


def short_time(moment: datetime | int | str) -> str:
    """Compact UTC time for tables and labels (full precision stays in the JSON API):
    seconds shown when the time has them, so rows recorded in one minute differ. Takes
    a datetime, epoch microseconds, or the RFC 3339 text of a JSON-shaped view."""
    if isinstance(moment, str):
        moment = parse_timestamp(moment, "time")
    if isinstance(moment, int):
        moment = from_micros(moment)
    shown = moment.astimezone(UTC)
    if (shown.hour, shown.minute, shown.second, shown.microsecond) == (0, 0, 0, 0):
        return shown.strftime("%Y-%m-%d")
    if shown.second == 0 and shown.microsecond == 0:
        return shown.strftime("%Y-%m-%d %H:%M")
    return shown.strftime("%Y-%m-%d %H:%M:%S")


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    number: int
    """The version's row, from 1 in recorded order (``v1``, ``v2``, ...)."""
    label: str
    value: str
    source: str
    state: str
    """``current`` (in force now), ``held`` (current record, other valid time),
    ``superseded`` (replaced in transaction time)."""
    valid: str
    recorded: str


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    label: str
    anchor: str = "middle"


@dataclass(frozen=True, slots=True)
class VersionRow:
    """A version as the table lists it: its row number and the number of the row it
    replaced (None when it replaced nothing, or what it replaced is gone)."""

    number: int
    version: Assertion
    replaces: int | None


@dataclass(frozen=True, slots=True)
class Timeline:
    width: int
    height: int
    bars: list[Bar]
    ticks: list[Tick]
    now_x: float | None
    rows: list[VersionRow]
    chars: int = 40
    """How much of a bar's value its label shows."""


def recorded_order(versions: list[Assertion]) -> list[Assertion]:
    return sorted(versions, key=lambda a: (a.recorded_at, a.valid_from, a.id))


def draw(versions: list[Assertion], now: datetime, *, narrow: bool = False) -> Timeline:
    """The versions on the valid/transaction axes; ``narrow``: the phone-width drawing
    (rows labelled ``v1``, ``v2``, ... only, fewer ticks, shorter value labels)."""
    width, label_room, open_room, target_ticks, chars = NARROW if narrow else WIDE
    ordered = recorded_order(versions)
    if not ordered:
        return Timeline(width, TOP + ROW, [], [], None, [], chars)
    starts = [to_micros(a.valid_from) for a in ordered]
    ends = [to_micros(a.valid_to) for a in ordered if a.valid_to is not None]
    first, last = min(starts), max(starts + ends)
    now_micros = to_micros(now)
    if first <= now_micros <= last + max(last - first, MIN_SPAN):  # recent history: show it reaching now
        last = max(last, now_micros)
    span = max(last - first, MIN_SPAN)
    middle = (first + last) // 2
    first, last = min(first, middle - span // 2), max(last, middle + span // 2)
    low = first - round(span * MARGIN)
    high = last + round(span * MARGIN)
    open_starts = [to_micros(a.valid_from) for a in ordered if a.valid_to is None]
    if open_starts:  # an open end runs to the edge: leave its bar room for its label
        drawn = width - label_room - RIGHT
        high = max(high, low + round((max(open_starts) - low) * drawn / (drawn - open_room)))

    def x_of(micros: int) -> float:
        return label_room + (width - label_room - RIGHT) * (micros - low) / (high - low)

    bars = []
    for number, a in enumerate(ordered, start=1):
        start = x_of(to_micros(a.valid_from))
        end = x_of(high if a.valid_to is None else to_micros(a.valid_to))
        live = a.superseded_at is None
        holds_now = live and a.valid_from <= now and (a.valid_to is None or now < a.valid_to)
        bars.append(Bar(
            x=round(start, 1), y=TOP + (number - 1) * ROW, width=round(max(end - start, 3), 1), number=number,
            label=f"v{number}" if narrow else f"v{number} · {short_time(a.recorded_at)}", value=_value_text(a.value),
            source=a.source, state="current" if holds_now else ("held" if live else "superseded"),
            valid=f"{short_time(a.valid_from)} → {'open' if a.valid_to is None else short_time(a.valid_to)}",
            recorded=f"{short_time(a.recorded_at)} → "
                     f"{'now' if a.superseded_at is None else short_time(a.superseded_at)}",
        ))
    ticks = [Tick(round(x_of(t), 1), label, _anchor(x_of(t), width, label_room))
             for t, label in round_ticks(low, high, target_ticks)]
    now_x = round(x_of(now_micros), 1) if low <= now_micros <= high else None
    return Timeline(width, TOP + len(ordered) * ROW + 30, bars, ticks, now_x, _rows(ordered), chars)


def _rows(ordered: list[Assertion]) -> list[VersionRow]:
    """Number the versions; a version replaces the latest row of the assertion it names
    that was recorded before it (a version cut short keeps its assertion's id)."""
    rows = []
    for number, version in enumerate(ordered, start=1):
        earlier = [n for n, other in enumerate(ordered[:number - 1], start=1)
                   if version.supersedes is not None and other.id == version.supersedes]
        rows.append(VersionRow(number, version, earlier[-1] if earlier else None))
    return rows


def round_ticks(low: int, high: int, target: int = TARGET_TICKS) -> list[tuple[int, str]]:
    """Instants between ``low`` and ``high`` (microseconds) at a round step giving about
    ``target`` ticks, each with a label as precise as the step needs."""
    wanted = (high - low) / target
    step = next((s for s in _STEPS if s >= wanted), None)
    if step is None:
        months = next((m for m in _MONTH_STEPS if m * 30 * _DAY >= wanted), _MONTH_STEPS[-1])
        return [(to_micros(t), t.strftime("%Y-%m-%d" if months < 12 else "%Y")) for t in _months(low, high, months)]
    fmt = "%Y-%m-%d" if step >= _DAY else ("%m-%d %H:%M" if step >= 60 * _SECOND else "%H:%M:%S")
    first = -(-low // step) * step  # the first multiple of the step (UTC midnights for days) at or after low
    return [(t, from_micros(t).astimezone(UTC).strftime(fmt)) for t in range(first, high + 1, step)]


def _months(low: int, high: int, every: int) -> list[datetime]:
    start = from_micros(low).astimezone(UTC)
    index = start.year * 12 + start.month - 1
    index += -index % every
    if datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC) < start:
        index += every
    found = []
    while (moment := datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)) <= from_micros(high):
        found.append(moment)
        index += every
    return found


def _anchor(x: float, width: int = WIDTH, label_room: int = LABEL) -> str:
    """Labels near an edge grow inwards, so none spills out of the drawing."""
    if x < label_room + 40:
        return "start"
    if x > width - RIGHT - 40:
        return "end"
    return "middle"


def _value_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def duration_text(iso: str | None) -> str:
    """An ISO 8601 duration as a reader says it: ``P30D`` → "30 days", ``PT1H30M`` →
    "1 hour 30 minutes"; None → "until erased"."""
    if iso is None:
        return "until erased"
    left = timedelta(microseconds=parse_ttl(iso) or 0)
    parts = []
    for unit, size in (("day", timedelta(days=1)), ("hour", timedelta(hours=1)), ("minute", timedelta(minutes=1)),
                       ("second", timedelta(seconds=1))):
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(parts) or iso
