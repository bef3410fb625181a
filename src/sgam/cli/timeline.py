"""Draw a key's versions as bars on a valid-time axis, so people see the intervals."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from rich.table import Table
from rich.text import Text

from .._model import Assertion
from .._time import format_timestamp

WIDTH = 44


def _short(moment: datetime | None) -> str:
    return "open" if moment is None else moment.strftime("%m-%d %H:%M")


def timeline_table(title: str, versions: list[Assertion]) -> Table:
    """One row per version: value, source, its valid-time bar and its recorded interval.

    Current versions are drawn solid; versions the ledger has since replaced (in
    transaction time) are drawn dim, so history stays visible beside what holds."""
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("value")
    table.add_column("source")
    table.add_column("valid time", no_wrap=True)
    table.add_column("valid")
    table.add_column("recorded")
    if not versions:
        return table
    start = min(v.valid_from for v in versions)
    ends = [v.valid_to or v.valid_from for v in versions] + [v.valid_from for v in versions]
    stop = max(ends) + timedelta(days=2)
    span = (stop - start).total_seconds() or 1.0

    def column(moment: datetime) -> int:
        return min(WIDTH, max(0, round((moment - start).total_seconds() / span * WIDTH)))

    for version in sorted(versions, key=lambda v: (v.recorded_at, v.valid_from)):
        left = column(version.valid_from)
        right = WIDTH if version.valid_to is None else max(left + 1, column(version.valid_to))
        style = "bold green" if version.is_current else "dim"
        bar = Text(" " * left)
        bar.append("█" * (right - left) + ("▶" if version.valid_to is None else ""), style=style)
        replaced = _short(version.superseded_at) if version.superseded_at else "now"
        recorded = f"{_short(version.recorded_at)} → {replaced}"
        table.add_row(
            Text(json.dumps(version.value), style=style), version.source, bar,
            f"{_short(version.valid_from)} → {_short(version.valid_to)}", recorded,
        )
    axis = f"{format_timestamp(start)[:10]} … {format_timestamp(stop)[:10]}"
    table.caption = f"axis {axis}; dim = replaced in transaction time"
    return table
