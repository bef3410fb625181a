"""``sgam actions``: the action ledger, so a person can see what is in doubt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from .output import DbOption, JsonOption, TenantOption, run
from .tables import compact_time, print_table

if TYPE_CHECKING:
    from ..ledger.actions import Action


def show_actions(found: list[Action]) -> None:
    """Every action whole: the request and the result fold onto more lines, nothing is cut."""
    print_table(
        ("key", "status", "attempts", "started", "finished", "request", "result / error"),
        [(action.key, Text("in doubt", style="red") if action.status == "in_doubt" else "done", str(action.attempts),
          compact_time(action.started_at), compact_time(action.finished_at, "-"),
          json.dumps(action.request, ensure_ascii=False),
          (action.error if action.status == "in_doubt" and action.error else json.dumps(action.result)) or "")
         for action in found],
        empty="no actions", fold=("request", "result / error"),
    )


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
