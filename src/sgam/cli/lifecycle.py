"""Lifecycle commands: retention classes, consent, purge, the audit log."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from .._core.time import format_timestamp
from .ledger import PurposeOption
from .output import DbOption, JsonOption, TenantOption, console, run


def _show_class(found: Any) -> None:
    console.print(f"class {found.name}: ttl {found.ttl_iso or 'none (kept until erased)'}, "
                  f"on expiry {found.on_expiry}")


def _show_report(report: dict[str, Any]) -> None:
    table = Table("class", "ttl", "on expiry", "episodes", "text lost", "documents", "next deadline")
    for row in report["classes"]:
        deadline = row["next_deadline"]
        table.add_row(row["class"], row["ttl"] or "-", row["on_expiry"], str(row["episodes"]),
                      str(row["text_lost"]), str(row["documents"]), format_timestamp(deadline) if deadline else "-")
    console.print(table)
    for item in report["next_deadlines"]:
        console.print(f"{format_timestamp(item['at'])}  {item['kind']}  {item['class'] or ''}")


def _show_consent(state: Any) -> None:
    scope = "every purpose" if state.purpose is None else f"purpose {state.purpose}"
    console.print(f"{state.subject}: {'granted' if state.granted else 'revoked'} for {scope} "
                  f"from {format_timestamp(state.changed_at)}")


def _show_purge(result: Any) -> None:
    console.print(f"purged {result.tenants} tenant(s): {result.operations_removed} operations, "
                  f"{result.episodes_removed} episodes, {result.texts_dropped} texts, {result.items_removed} "
                  f"store items, {result.revisions_removed} document revisions, {result.threads_erased} "
                  f"checkpoint threads; {result.keys_rederived} keys re-derived, {result.threads_pruned} "
                  "threads pruned to what a resume needs")


def _show_residue(result: Any) -> None:
    if not result.found:
        console.print("nowhere")
    for place, matches in sorted(result.places.items()):
        console.print(f"{place}: {matches}")
    if result.unscanned:
        console.print(f"not searched (they mix tenants and the store holds others): {', '.join(result.unscanned)}",
                      highlight=False)


def _show_audit(entries: list[Any]) -> None:
    table = Table("seq", "at", "action", "call", "rows", "target", "detail")
    for e in entries:
        table.add_row(str(e.seq), format_timestamp(e.at), e.action, e.call, str(e.rows), (e.target or "-")[:16],
                      json.dumps(e.detail))
    console.print(table)


def register(app: typer.Typer) -> None:
    retention = typer.Typer(help="Retention classes: how long a class of data is kept, and what expiry does.",
                            no_args_is_help=True)
    app.add_typer(retention, name="retention")

    @retention.command("set")
    def retention_set(
        tenant: TenantOption,
        name: Annotated[str, typer.Argument(metavar="CLASS", help="Name of the class (default is built in).")],
        ttl: Annotated[str, typer.Argument(help="ISO 8601 duration (P30D, PT12H, P1DT6H30M), or 'none'.")],
        on_expiry: Annotated[str, typer.Option("--on-expiry", help="erase or keep_facts.")] = "erase",
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Declare or redeclare a retention class (moves every deadline of the class)."""
        run(db, as_json, lambda m: m.retention(tenant, name, None if ttl in ("none", "null") else ttl,
                                               on_expiry=on_expiry),
            _show_class)

    @retention.command("report")
    def retention_report(tenant: TenantOption, db: DbOption = None, as_json: JsonOption = False) -> None:
        """What each class holds and when the next deadlines fall."""
        run(db, as_json, lambda m: m.retention_report(tenant), _show_report, create=False)

    @app.command("consent")
    def consent(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument(help="The subject the consent is about.")],
        grant: Annotated[bool, typer.Option("--grant", help="Consent is given.")] = False,
        revoke: Annotated[bool, typer.Option("--revoke", help="Consent is withdrawn (nothing is erased).")] = False,
        purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Grant or revoke consent for a subject, for every purpose or one (--purpose)."""
        if grant == revoke:
            raise typer.BadParameter("give exactly one of --grant or --revoke")
        run(db, as_json, lambda m: m.consent(tenant, subject, grant, purpose=purpose), _show_consent)

    @app.command("purge")
    def purge(
        tenant: Annotated[str | None, typer.Option("--tenant", "-t", help="Only this tenant (default: all).")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Erase everything past its deadline and remove the physical residue."""
        run(db, as_json, lambda m: m.purge(tenant), _show_purge)

    @app.command("residue")
    def residue(
        tenant: TenantOption,
        text: Annotated[str, typer.Argument(help="The literal string to look for (an erased marker).")],
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Where TEXT still appears in the tenant's store; exit 0 when nowhere, 1 when found."""
        found: list[bool] = []

        def scan(memory: Any) -> Any:
            result = memory.residue(tenant, text)
            found.append(result.found)
            return result

        run(db, as_json, scan, _show_residue, create=False)
        if found and found[0]:
            raise typer.Exit(1)

    @app.command("audit")
    def audit(
        tenant: TenantOption,
        limit: Annotated[int, typer.Option(help="At most this many entries.")] = 100,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """The tenant's erasures, expiries and consent changes (never their content)."""
        run(db, as_json, lambda m: m.audit(tenant, limit=limit), _show_audit, create=False)
