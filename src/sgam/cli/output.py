"""Shared CLI plumbing: the database option, JSON printing and error exit statuses
(the encoding and the kind → status table live in ``sgam.boundary``, shared by every surface)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .._errors import NotFoundError, SgamError
from .._memory import Memory, default_url
from .._values import storable_text
from ..boundary import dumps, exit_status
from ..store.sqlite import sqlite_path

console = Console()
errors = Console(stderr=True)

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $SGAM_DATABASE_URL or sqlite:///./sgam.db).")
]
TenantOption = Annotated[str, typer.Option("--tenant", "-t", envvar="SGAM_TENANT", help="Tenant scope of the call.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def json_text(value: Any) -> str:
    """JSON for a terminal or a pipe: non-ASCII text as it is, but a lone surrogate (from a
    file's escapes, or undecodable bytes of a shell argument) as its escape, which stays
    valid JSON and can always be written out."""
    return storable_text(dumps(value, indent=2))


def print_json(value: Any) -> None:
    typer.echo(json_text(value))


@contextmanager
def open_memory(db: str | None, as_json: bool = False, *, create: bool = True, **options: Any) -> Iterator[Memory]:
    """Open the store (``Memory.from_env``; ``options`` go to it) and turn sgam errors into
    a message and the error's exit status. With ``create=False`` (reads) a missing SQLite
    file is an error instead of a new, empty database."""
    try:
        url = default_url() if db is None else db
        if not create:
            require_existing(url)
        with Memory.from_env(url, **options) as memory:
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
    raise typer.Exit(exit_status(exc))


def report_error(exc: SgamError, as_json: bool = False) -> None:
    """The error as ``{"error": {...}}`` on stdout (``--json``) or one line on stderr."""
    if as_json:
        print_json({"error": exc.to_dict()})
    else:
        message = escape(storable_text(exc.message))
        errors.print(f"[red]error[/red] ({exc.kind}): {message}", highlight=False, soft_wrap=True)


def run(
    db: str | None, as_json: bool, call: Callable[[Memory], Any], show: Callable[[Any], None], *,
    create: bool = True, for_people: Callable[[Memory, Any], Any] | None = None, **options: Any,
) -> None:
    """Parse-call-print: one library call, its result as JSON or for people. Reads pass
    ``create=False``: they never create a database. ``for_people`` rewrites the result
    for the table (subjects by their display names); JSON keeps what the call returned."""
    with open_memory(db, as_json, create=create, **options) as memory:
        try:
            result = call(memory)
            if for_people is not None and not as_json:
                result = for_people(memory, result)
        except SgamError as exc:
            fail(exc, as_json)
            return
    if as_json:
        print_json(result)
    else:
        show(result)
