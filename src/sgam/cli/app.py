"""The Typer application; each command module registers its commands here."""

from __future__ import annotations

import typer

from . import actions, demo, documents, extraction, ledger, migrate, recall, replay

app = typer.Typer(
    name="sgam",
    help="sgam: typed, bitemporal, tenant-scoped memory for AI agents.\n\n"
    "Exit status: 0 ok, 1 failed expectations, 2 bad usage or scenario file, "
    "3 validation, 4 not found, 5 conflict, 6 storage error, 7 model unavailable.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for module in (ledger, replay, extraction, recall, documents, actions, migrate, demo):
    module.register(app)


def main() -> None:
    app()
