"""Shared CLI plumbing: the database option, JSON printing and error exit statuses
(the encoding and the kind → status table live in ``sgam.boundary``, shared by every surface)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .._errors import SgamError
from .._memory import Memory
from ..boundary import dumps, exit_status

console = Console()
errors = Console(stderr=True)

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $SGAM_DATABASE_URL or sqlite:///./sgam.db).")
]
TenantOption = Annotated[str, typer.Option("--tenant", "-t", envvar="SGAM_TENANT", help="Tenant scope of the call.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def print_json(value: Any) -> None:
    typer.echo(dumps(value, indent=2))


@contextmanager
def open_memory(db: str | None, as_json: bool = False, **options: Any) -> Iterator[Memory]:
    """Open the store (``Memory.from_env``; ``options`` go to it) and turn sgam errors into
    a message and the error's exit status."""
    try:
        with Memory.from_env(db, **options) as memory:
            yield memory
    except SgamError as exc:
        fail(exc, as_json)


def fail(exc: SgamError, as_json: bool = False) -> None:
    if as_json:
        typer.echo(json.dumps({"error": exc.to_dict()}))
    else:
        errors.print(f"[red]error[/red] ({exc.kind}): {escape(exc.message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(exit_status(exc))


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
