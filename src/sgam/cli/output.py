"""Shared CLI plumbing: the database option, JSON printing and error exit statuses
(the encoding and the kind → status table live in ``sgam.boundary``, shared by every surface)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from .._core.errors import NotFoundError, SgamError
from .._core.values import storable_text

if TYPE_CHECKING:
    from ..memory.facade import Memory

UNBOUNDED = 1_000_000
DRAWING_WIDTH = 80


class Output(Console):
    """rich's console, except in a pipe: writing to something that is not a terminal, with
    no ``COLUMNS`` given, it never wraps, so a line is as long as its content and
    ``grep``/``cut`` see each record whole."""

    @property
    def unbounded(self) -> bool:
        return not self.is_terminal and "COLUMNS" not in os.environ

    @property
    def size(self) -> ConsoleDimensions:
        measured = Console.size.fget(self)  # type: ignore[attr-defined]
        return ConsoleDimensions(UNBOUNDED, measured.height) if self.unbounded else measured

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    def drawing_width(self) -> int:
        """The width of a drawing (a rule, a timeline's bars): the console's, or 80 in a pipe."""
        return DRAWING_WIDTH if self.unbounded else self.width


console = Output()
errors = Output(stderr=True)

DbOption = Annotated[
    str | None, typer.Option("--db", help="Database URL (default: $SGAM_DATABASE_URL or sqlite:///./sgam.db).")
]
TenantOption = Annotated[str, typer.Option("--tenant", "-t", envvar="SGAM_TENANT", help="Tenant scope of the call.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def json_text(value: Any) -> str:
    """JSON for a terminal or a pipe: non-ASCII text as it is, but a lone surrogate (from a
    file's escapes, or undecodable bytes of a shell argument) as its escape, which stays
    valid JSON and can always be written out."""
    from ..boundary import dumps

    return storable_text(dumps(value, indent=2))


def print_json(value: Any) -> None:
    typer.echo(json_text(value))


@contextmanager
def open_memory(db: str | None, as_json: bool = False, *, create: bool = True, **options: Any) -> Iterator[Memory]:
    """Open the store (``Memory.from_env``; ``options`` go to it) and turn sgam errors into
    a message and the error's exit status. With ``create=False`` (reads) a missing SQLite
    file is an error instead of a new, empty database. The library is imported here, when a
    command runs, so ``sgam --help`` does not load it."""
    from ..memory.facade import Memory, default_url

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
    from ..store.sqlite import sqlite_path

    path = sqlite_path(url)
    if path != ":memory:" and not Path(path).exists():
        raise NotFoundError(
            f"db: the SQLite file {path} does not exist (a read never creates one: check --db or "
            "$SGAM_DATABASE_URL, or record something first)", field="db", value=url,
        )


def fail(exc: SgamError, as_json: bool = False) -> None:
    from ..boundary import exit_status

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
    create: bool = True, encode: Callable[[Any], Any] | None = None,
    for_people: Callable[[Memory, Any], Any] | None = None, **options: Any,
) -> None:
    """Parse-call-print: one library call, its result as JSON (through ``encode`` when the
    result has a surface shape of its own, such as a recall's) or for people. Reads pass
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
        print_json(result if encode is None else encode(result))
    else:
        show(result)
