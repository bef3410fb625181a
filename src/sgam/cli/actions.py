"""``sgam actions``: the action ledger, so a person can see what is in doubt."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from .._actions import Action
from .._time import format_timestamp
from .output import DbOption, JsonOption, TenantOption, console, run


def show_actions(found: list[Action]) -> None:
    table = Table("key", "status", "attempts", "started", "finished", "request", "result / error")
    for action in found:
        outcome = action.error if action.status == "in_doubt" and action.error else json.dumps(action.result)
        table.add_row(
            action.key, "[red]in doubt[/red]" if action.status == "in_doubt" else "done", str(action.attempts),
            format_timestamp(action.started_at),
            format_timestamp(action.finished_at) if action.finished_at else "-",
            json.dumps(action.request, ensure_ascii=False)[:80], (outcome or "")[:80],
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    @app.command("actions")
    def actions(
        tenant: TenantOption,
        status: Annotated[str | None, typer.Option(help="Only actions in this status: in_doubt or done.")] = None,
        limit: Annotated[int, typer.Option(help="At most this many.")] = 100,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Recorded external actions of the tenant: done, or in doubt (begun, outcome unknown)."""
        run(db, as_json, lambda m: m.actions(tenant, status=status, limit=limit), show_actions, create=False)
