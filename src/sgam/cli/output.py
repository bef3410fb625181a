"""Shared CLI plumbing: the database option, JSON rendering and error exit statuses."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .._errors import SgamError
from .._memory import Memory, default_url
from .._time import format_timestamp

EXIT_CODES: dict[str, int] = {
    "validation": 3,
    "not_found": 4,
    "conflict": 5,
    "action_in_doubt": 5,
    "store": 6,
    "busy": 6,
    "unsafe_database": 6,
    "schema_version": 6,
    "model": 7,
}

console = Console()
errors = Console(stderr=True)

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $SGAM_DATABASE_URL or sqlite:///./sgam.db).")
]
TenantOption = Annotated[str, typer.Option("--tenant", "-t", envvar="SGAM_TENANT", help="Tenant scope of the call.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return {k: jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def print_json(value: Any) -> None:
    typer.echo(json.dumps(jsonable(value), ensure_ascii=False, indent=2))


@contextmanager
def open_memory(db: str | None, as_json: bool = False, **options: Any) -> Iterator[Memory]:
    """Open the store (``options`` go to ``Memory``) and turn sgam errors into a message
    and the error's exit status."""
    try:
        with Memory(db or default_url(), **options) as memory:
            yield memory
    except SgamError as exc:
        fail(exc, as_json)


def fail(exc: SgamError, as_json: bool = False) -> None:
    if as_json:
        typer.echo(json.dumps({"error": exc.to_dict()}))
    else:
        errors.print(f"[red]error[/red] ({exc.kind}): {escape(exc.message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_CODES.get(exc.kind, 1))


def run(
    db: str | None, as_json: bool, call: Callable[[Memory], Any], show: Callable[[Any], None], **options: Any
) -> None:
    """Parse-call-print: one library call, its result as JSON or for people."""
    with open_memory(db, as_json, **options) as memory:
        try:
            result = call(memory)
        except SgamError as exc:
            fail(exc, as_json)
            return
    if as_json:
        print_json(result)
    else:
        show(result)
