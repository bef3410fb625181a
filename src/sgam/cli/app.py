"""The Typer application; each command module registers its commands here."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .. import __version__
from . import (
    actions,
    browse,
    demo,
    documents,
    extraction,
    keys,
    ledger,
    lifecycle,
    migrate,
    portability,
    recall,
    replay,
    schema,
    serve,
    threads,
)
from .output import print_json


class JsonAwareGroup(TyperGroup):
    """Usage errors (a missing argument, a bad option) follow ``--json`` like every
    other error: ``{"error": {"kind": "usage", "message": ...}}`` and exit status 2."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, windows_expand_args: bool = True,
             **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        if not standalone_mode or "--json" not in argv:
            return super().main(argv, prog_name, complete_var, standalone_mode, windows_expand_args, **extra)
        try:
            code = super().main(argv, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.Abort:
            sys.exit(1)
        except Exception as exc:
            message = getattr(exc, "format_message", None)
            if message is None:  # not a usage error: let it surface as it is
                raise
            print_json({"error": {"kind": "usage", "message": message()}})
            sys.exit(getattr(exc, "exit_code", 2))
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="sgam",
    cls=JsonAwareGroup,
    help="sgam: typed, bitemporal, tenant-scoped memory for AI agents.\n\n"
    "Exit status: 0 ok, 1 failed expectations, 2 bad usage or scenario file, "
    "3 validation, 4 not found, 5 conflict, 6 storage error, 7 model unavailable or failed, "
    "8 denied (consent revoked).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"sgam {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """sgam: typed, bitemporal, tenant-scoped memory for AI agents."""


for module in (ledger, browse, schema, replay, extraction, recall, documents, actions, threads, lifecycle, keys, serve,
               migrate, portability, demo):
    module.register(app)


def main() -> None:
    app()
