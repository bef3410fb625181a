"""Draw a key's versions as bars on a valid-time axis, so people see the intervals."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from .._core.model import Assertion
from .output import console
from .tables import compact_time, fits, json_value, natural_width, new_table

MIN_BAR = 12
MAX_BAR = 60


def _clock(moments: list[datetime]) -> Callable[[datetime | None], str]:
    """Times to the minute in UTC, without the year when every one shares it."""
    pattern = "%m-%d %H:%M" if len({m.year for m in moments}) == 1 else "%Y-%m-%d %H:%M"
    return lambda moment: "open" if moment is None else moment.astimezone(UTC).strftime(pattern)


def _table(title: str | None, with_bar: bool, width: int) -> Table:
    table = new_table(title=title)
    table.add_column("value", overflow="fold")
    table.add_column("source", overflow="fold")
    if with_bar:
        table.add_column("valid time", no_wrap=True, min_width=width, max_width=width)
    table.add_column("valid", overflow="fold")
    table.add_column("recorded", overflow="fold")
    return table


def timeline_table(title: str, versions: list[Assertion]) -> RenderableType:
    """One row per version: value, source, its valid-time bar and its recorded interval.

    Current versions are drawn solid; versions the ledger has since replaced (in
    transaction time) are drawn dim, so history stays visible beside what holds. The
    bars take the width the text columns leave; when they leave too little, the bars
    are drawn in a table of their own under the text."""
    if not versions:
        return _table(title, False, 0)
    start = min(v.valid_from for v in versions)
    ends = [v.valid_to or v.valid_from for v in versions] + [v.valid_from for v in versions]
    stop = max(ends) + timedelta(days=2)
    span = (stop - start).total_seconds() or 1.0
    ordered = sorted(versions, key=lambda v: (v.recorded_at, v.valid_from))
    caption = f"axis {compact_time(start)} to {compact_time(stop)}; dim = replaced in transaction time"
    _short = _clock([start, stop] + [v.recorded_at for v in versions]
                    + [v.superseded_at for v in versions if v.superseded_at is not None])

    def bar(version: Assertion, width: int) -> Text:
        def column(moment: datetime) -> int:
            return min(width - 1, max(0, round((moment - start).total_seconds() / span * (width - 1))))

        left = column(version.valid_from)
        right = width - 1 if version.valid_to is None else max(left + 1, column(version.valid_to))
        drawn = Text(" " * left)
        style = "bold green" if version.is_current else "dim"
        drawn.append("█" * (right - left) + ("▶" if version.valid_to is None else ""), style=style)
        return drawn

    def rows(table: Table, width: int | None) -> Table:
        for version in ordered:
            style = "bold green" if version.is_current else "dim"
            replaced = _short(version.superseded_at) if version.superseded_at else "now"
            recorded = f"{_short(version.recorded_at)} → {replaced}"
            cells: list[Text | str] = [Text(json_value(version.value), style=style), Text(version.source)]
            if width is not None:
                cells.append(bar(version, width))
            cells += [f"{_short(version.valid_from)} → {_short(version.valid_to)}", recorded]
            table.add_row(*cells)
        return table

    text_only = rows(_table(title, False, 0), None)
    text_width = natural_width(text_only)
    room = console.drawing_width() - text_width - 3
    if room >= MIN_BAR:
        combined = rows(_table(title, True, min(room, MAX_BAR)), min(room, MAX_BAR))
        combined.caption = caption
        if fits(combined):
            return combined
    value_width = max(len(json_value(v.value)) for v in ordered)
    width = max(MIN_BAR, min(MAX_BAR, console.drawing_width() - value_width - 7))
    bars = new_table()
    bars.caption = caption
    bars.add_column("value", overflow="fold")
    bars.add_column("valid time", no_wrap=True, min_width=width, max_width=width)
    for version in ordered:
        style = "bold green" if version.is_current else "dim"
        bars.add_row(Text(json_value(version.value), style=style), bar(version, width))
    return Group(text_only, Text(""), bars)
