"""A key's bitemporal record drawn as SVG: valid time across, transaction time down.

Each version is one bar from ``valid_from`` to ``valid_to`` (an open end runs to the right
edge), on its own row in the order it was recorded, so a correction or a supersession
shows as a later row over the same stretch of valid time. Pure geometry: the template
only prints what this module computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from ..._model import Assertion
from ..._time import from_micros, to_micros

WIDTH = 960
LABEL = 200
ROW = 34
TOP = 30


def short_time(moment: datetime | int) -> str:
    """Compact UTC time for tables and labels (full precision stays in the JSON API)."""
    if isinstance(moment, int):
        moment = from_micros(moment)
    shown = moment.astimezone(UTC)
    if (shown.hour, shown.minute, shown.second, shown.microsecond) == (0, 0, 0, 0):
        return shown.strftime("%Y-%m-%d")
    return shown.strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
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
class Timeline:
    width: int
    height: int
    bars: list[Bar]
    ticks: list[Tick]
    now_x: float | None


def draw(versions: list[Assertion], now: datetime) -> Timeline:
    ordered = sorted(versions, key=lambda a: (a.recorded_at, a.valid_from))
    if not ordered:
        return Timeline(WIDTH, TOP + ROW, [], [], None)
    starts = [to_micros(a.valid_from) for a in ordered]
    ends = [to_micros(a.valid_to) for a in ordered if a.valid_to is not None]
    low = min(starts)
    high = max(starts + ends + [to_micros(now)])
    span = max(high - low, 1)
    high += span // 10  # room for open ends
    span = high - low

    def x_of(micros: int) -> float:
        return LABEL + (WIDTH - LABEL - 10) * (micros - low) / span

    bars = []
    now_micros = to_micros(now)
    for row, a in enumerate(ordered):
        start = x_of(to_micros(a.valid_from))
        end = x_of(high if a.valid_to is None else to_micros(a.valid_to))
        live = a.superseded_at is None
        holds_now = live and a.valid_from <= now and (a.valid_to is None or now < a.valid_to)
        bars.append(Bar(
            x=round(start, 1), y=TOP + row * ROW, width=round(max(end - start, 3), 1),
            label=f"recorded {short_time(a.recorded_at)}", value=_value_text(a.value), source=a.source,
            state="current" if holds_now else ("held" if live else "superseded"),
            valid=f"{short_time(a.valid_from)} → {'open' if a.valid_to is None else short_time(a.valid_to)}",
            recorded=f"{short_time(a.recorded_at)} → "
                     f"{'now' if a.superseded_at is None else short_time(a.superseded_at)}",
        ))
    ticks = [Tick(round(x_of(low + span * i // 4), 1), short_time(low + span * i // 4),
                  "end" if i == 4 else "middle") for i in range(5)]
    now_x = round(x_of(now_micros), 1) if low <= now_micros <= high else None
    return Timeline(WIDTH, TOP + len(ordered) * ROW + 30, bars, ticks, now_x)


def _value_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
