"""Tables and records for people: every value and id printed whole, at any width.

Every table has one style (``new_table``). A table is drawn when it fits the terminal;
in a pipe (no terminal, no ``COLUMNS``) nothing wraps, so every table is drawn whole, one
line per row. When a table is too wide, only the columns of free text a command names
(an episode's text, evidence, a request) fold onto more lines, never ids, values, times
or statuses; when folding them is not enough, each row becomes a block of
``label  value`` lines, which the terminal may wrap but nothing cuts. In a pipe those
lines are written as they are (tabs kept). Table columns show times to the second, one
record's lines show the fraction when there is one, and ``--json`` keeps full precision.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import typer
from rich import box
from rich.cells import cell_len
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from .output import console


def compact_time(moment: datetime | None, missing: str = "open") -> str:
    """RFC 3339 in UTC to the second, with a ``Z``: what a table column shows."""
    if moment is None:
        return missing
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def exact_time(moment: datetime | None, missing: str = "open") -> str:
    """RFC 3339 in UTC with a ``Z``, with the fraction unless it is zero: one record's view."""
    if moment is None:
        return missing
    moment = moment.astimezone(UTC)
    fraction = f".{moment.microsecond:06d}" if moment.microsecond else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


def cell(value: Any) -> str:
    """One value as a table shows it: times compact, JSON values as JSON, None as -."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return exact_time(value)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if is_dataclass(value) and not isinstance(value, type):
        return json.dumps({f.name: cell(getattr(value, f.name)) for f in fields(value)}, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)


def json_value(value: Any) -> str:
    """A stored JSON value, shown as JSON so ``"12"`` and ``12`` stay distinguishable."""
    return json.dumps(value, ensure_ascii=False)


def natural_width(table: Table) -> int:
    """How wide the table is when no cell wraps."""
    return Measurement.get(console, console.options.update(max_width=1_000_000), table).maximum


def fits(table: Table) -> bool:
    return natural_width(table) <= console.width


MIN_FOLDED = 12


def new_table(*headers: str, title: str | None = None) -> Table:
    """The one table style of the CLI: a rule under the headings, no frame. A table is at
    least as wide as its title (up to the console's width), so a narrow table's title is
    one line rather than a word a line."""
    width = min(cell_len(title), console.width) if title else None
    return Table(*headers, title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                 min_width=width)


def _folding(table: Table, fold: Sequence[str]) -> bool:
    """Let only the ``fold`` columns wrap; whether the table then fits with each of them
    at least ``MIN_FOLDED`` wide."""
    if not fold:
        return False
    kept = new_table(*(str(c.header) for c in table.columns if str(c.header) not in fold))
    for row in zip(*(c.cells for c in table.columns if str(c.header) not in fold), strict=True):
        kept.add_row(*row)
    needed = natural_width(kept) + len(fold) * (MIN_FOLDED + 2)
    for column in table.columns:
        column.no_wrap = str(column.header) not in fold
        column.overflow = "fold"
    return needed <= console.width


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str | Text]], *, title: str | None = None,
                empty: str | None = None, fold: Sequence[str] = ()) -> None:
    """A table if it fits the console whole, or with its ``fold`` columns (free text)
    folded; else one block of labelled lines per row."""
    if not rows:
        if empty is not None:
            console.print(empty, highlight=False, markup=False)
        return
    table = new_table(*headers, title=title)
    for column in table.columns:
        column.overflow = "fold"
    for row in rows:
        table.add_row(*(item if isinstance(item, Text) else Text(item) for item in row))
    if fits(table) or _folding(table, fold):
        console.print(table)
        return
    if title:
        console.print(Text(title, style="bold"))
    for index, row in enumerate(rows, start=1):
        console.print(Text(f"[{index}]", style="dim"))
        print_pairs(list(zip(headers, row, strict=True)))


def print_pairs(pairs: Sequence[tuple[str, str | Text]]) -> None:
    """``label  value`` lines; a long value runs on (the terminal wraps it, nothing cuts it;
    in a pipe it is written as it is)."""
    width = max((len(label) for label, _ in pairs), default=0)
    if console.unbounded:
        for label, value in pairs:
            typer.echo(f"{label:<{width}}  {value.plain if isinstance(value, Text) else value}")
        return
    for label, value in pairs:
        shown = value if isinstance(value, Text) else Text(value)
        console.print(Text.assemble((f"{label:<{width}}  ", "bold"), shown), soft_wrap=True)


def print_record(headline: str, record: Any) -> None:
    """A dataclass result: a headline, then each field on its own labelled line."""
    if console.unbounded:
        typer.echo(headline)
    else:
        console.print(headline, highlight=False, markup=False, soft_wrap=True)
    print_pairs([(f.name, cell(getattr(record, f.name))) for f in fields(record)])
