"""Shared CLI plumbing: the database option, JSON rendering and error exit statuses."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .._errors import NotFoundError, SgamError
from .._memory import Memory, default_url
from .._time import format_timestamp
from .._values import storable_text
from ..store.sqlite import sqlite_path

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
    "denied": 8,
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


def json_text(value: Any) -> str:
    """JSON for a terminal or a pipe: non-ASCII text as it is, but a lone surrogate (from a
    file's escapes, or undecodable bytes of a shell argument) as its escape, which stays
    valid JSON and can always be written out."""
    return storable_text(json.dumps(value, ensure_ascii=False, indent=2))


def print_json(value: Any) -> None:
    typer.echo(json_text(jsonable(value)))


@contextmanager
def open_memory(db: str | None, as_json: bool = False, *, create: bool = True, **options: Any) -> Iterator[Memory]:
    """Open the store (``options`` go to ``Memory``) and turn sgam errors into a message
    and the error's exit status. With ``create=False`` (reads) a missing SQLite file is
    an error instead of a new, empty database."""
    try:
        url = default_url() if db is None else db
        if not create:
            require_existing(url)
        with Memory(url, **options) as memory:
            yield memory
    except SgamError as exc:
        fail(exc, as_json)


def require_existing(url: str) -> None:
    """A read names a database that must already exist: a typo must not create one."""
    if not url.startswith("sqlite:"):
        return
    path = sqlite_path(url)
    if path != ":memory:" and not Path(path).exists():
        raise NotFoundError(
            f"db: the SQLite file {path} does not exist (a read never creates one: check --db or "
            "$SGAM_DATABASE_URL, or record something first)", field="db", value=url,
        )


def fail(exc: SgamError, as_json: bool = False) -> None:
    report_error(exc, as_json)
    raise typer.Exit(EXIT_CODES.get(exc.kind, 1))


def report_error(exc: SgamError, as_json: bool = False) -> None:
    """The error as ``{"error": {...}}`` on stdout (``--json``) or one line on stderr."""
    if as_json:
        print_json({"error": exc.to_dict()})
    else:
        message = escape(storable_text(exc.message))
        errors.print(f"[red]error[/red] ({exc.kind}): {message}", highlight=False, soft_wrap=True)


def run(
    db: str | None, as_json: bool, call: Callable[[Memory], Any], show: Callable[[Any], None], *,
    create: bool = True, **options: Any,
) -> None:
    """Parse-call-print: one library call, its result as JSON or for people. Reads pass
    ``create=False``: they never create a database."""
    with open_memory(db, as_json, create=create, **options) as memory:
        try:
            result = call(memory)
        except SgamError as exc:
            fail(exc, as_json)
            return
    if as_json:
        print_json(result)
    else:
        show(result)
