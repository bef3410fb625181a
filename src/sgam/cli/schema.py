"""``sgam schema``: the tenant's declared attributes, and migrations as recorded steps —
rename and retype one attribute, list what a retype set aside, the history of steps, and
a migration file that ``plan`` shows (changing nothing) and ``apply`` runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .browse import show_schema
from .output import DbOption, JsonOption, TenantOption, console, run
from .progress import backfill_bars
from .tables import exact_time, json_value, print_table

if TYPE_CHECKING:
    from .._core.model import Backfill, Quarantined, SchemaChange
    from ..memory.facade import Memory

schema = typer.Typer(help="Declared attributes, and migrations: rename, retype, quarantine, history, plan, apply, "
                          "backfill status.",
                     invoke_without_command=True)

FileArg = Annotated[Path, typer.Argument(help="A migration file: YAML with `steps`, each a rename, retype or "
                                              "schema step of the replay format.")]
ByOption = Annotated[str | None, typer.Option("--by", help="Whose decision it is (kept with the step).")]
BatchOption = Annotated[int, typer.Option("--batch", min=1, help="Subjects a backfill converts per transaction.")]
BackfillOption = Annotated[bool | None, typer.Option(
    "--backfill/--in-one-transaction",
    help="Convert in batches after recording the step, or in the step's own transaction "
         "(default: batches for an attribute of more than 2,000 subjects).")]


def show_changes(found: list[SchemaChange]) -> None:
    print_table(("step", "kind", "attribute", "detail", "recorded", "by", "from file"),
                [(str(c.seq), c.kind, c.attribute, json_value(c.detail), exact_time(c.recorded_at),
                  c.decided_by or "", c.origin or "") for c in found], empty="no migrations")


def show_quarantine(found: list[Quarantined]) -> None:
    print_table(("attribute", "subject", "value", "since", "operation", "reason"),
                [(q.attribute, q.subject, json_value(q.value), exact_time(q.since), str(q.operation_id), q.reason)
                 for q in found], empty="nothing set aside")


def show_backfills(found: list[Backfill]) -> None:
    print_table(("step", "kind", "attribute", "subjects done", "of", "batches", "last subject", "started",
                 "finished"),
                [(str(b.step), b.kind, b.attribute, str(b.subjects_done), str(b.subjects_total),
                  str(b.batches_done), b.after_subject or "", exact_time(b.started_at),
                  "" if b.finished_at is None else exact_time(b.finished_at)) for b in found],
                empty="no backfills")


def _backfilled(memory: Memory, tenant: str, change: SchemaChange, batch: int, quiet: bool) -> SchemaChange:
    """The step recorded, then its backfill (if it has one) with a progress bar."""
    if any(not b.finished for b in memory.backfills(tenant)):
        with backfill_bars(tenant, quiet) as show:
            memory.run_backfill(tenant, batch=batch, progress=show)
    return change


def show_plan(found: list[dict[str, Any]]) -> None:
    print_table(("step", "operation", "attribute", "operations", "set aside", "examples", "outcome"),
                [(str(p["step"]), p["operation"], p["attribute"], str(p["operations"]), str(p["quarantined"]),
                  ", ".join(json_value(v) for v in p["examples"]), p["outcome"]) for p in found],
                empty="no steps")


def _migrations() -> Any:
    from ..replay import migration_file as module  # a library module: imported when a command runs
    return module


@schema.callback()
def _show(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option("--tenant", "-t", envvar="SGAM_TENANT",
                                               help="Tenant scope of the call.")] = None,
    db: DbOption = None, as_json: JsonOption = False,
) -> None:
    """Declared attributes (value type, cardinality, memory type, sensitivity) and memory types."""
    if ctx.invoked_subcommand is not None:
        return
    if tenant is None:
        raise typer.BadParameter("give --tenant", param_hint="--tenant")

    def call(memory: Memory) -> dict[str, Any]:
        attributes, types = memory.schema(tenant)
        return {"attributes": attributes, "memory_types": types}

    run(db, as_json, call, show_schema, create=False)


@schema.command("rename")
def rename(
    tenant: TenantOption, attribute: Annotated[str, typer.Argument()], to: Annotated[str, typer.Argument()],
    by: ByOption = None, backfill: BackfillOption = None, batch: BatchOption = 500, db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """From now on ATTRIBUTE is called TO (its history too); the old name keeps working."""
    run(db, as_json, lambda m: _backfilled(m, tenant, m.rename_attribute(
        tenant, attribute, to, decided_by=by or "cli", backfill=backfill, wait=False), batch, as_json),
        lambda c: show_changes([c]), create=False)


@schema.command("retype")
def retype(
    tenant: TenantOption, attribute: Annotated[str, typer.Argument()],
    value_type: Annotated[str, typer.Argument(metavar="TYPE")],
    quarantine: Annotated[bool, typer.Option("--quarantine", help="Set aside values with no conversion.")] = False,
    by: ByOption = None, backfill: BackfillOption = None, batch: BatchOption = 500, db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Declare TYPE for ATTRIBUTE and convert every value it ever held (a map: use a file).

    A large attribute is converted in batches with a progress bar: safe to interrupt,
    `sgam schema backfill` resumes."""
    run(db, as_json, lambda m: _backfilled(m, tenant, m.retype(
        tenant, attribute, value_type, quarantine=quarantine, decided_by=by or "cli", backfill=backfill,
        wait=False), batch, as_json), lambda c: show_changes([c]), create=False)


@schema.command("status")
def status(tenant: TenantOption, db: DbOption = None, as_json: JsonOption = False) -> None:
    """How far each migration step's backfill is (subjects done of all, batches)."""
    run(db, as_json, lambda m: m.backfills(tenant), show_backfills, create=False)


@schema.command("backfill")
def backfill_command(
    tenant: TenantOption, batch: BatchOption = 500,
    max_batches: Annotated[int | None, typer.Option("--max-batches", min=0,
                                                    help="Stop after this many batches.")] = None,
    db: DbOption = None, as_json: JsonOption = False,
) -> None:
    """Carry unfinished backfills on after the last batch done (after an interruption)."""
    def call(memory: Memory) -> list[Backfill]:
        with backfill_bars(tenant, as_json) as show:
            return memory.run_backfill(tenant, batch=batch, max_batches=max_batches, progress=show)

    run(db, as_json, call, show_backfills, create=False)


@schema.command("quarantine")
def quarantine(
    tenant: TenantOption, attribute: Annotated[str | None, typer.Argument()] = None,
    db: DbOption = None, as_json: JsonOption = False,
) -> None:
    """The values retypes set aside, and why: no conversion to the new type."""
    run(db, as_json, lambda m: m.quarantined(tenant, attribute), show_quarantine, create=False)


@schema.command("history")
def history(tenant: TenantOption, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Every migration step: what changed, when, by whose decision, from which file."""
    run(db, as_json, lambda m: m.schema_history(tenant), show_changes, create=False)


@schema.command("plan")
def plan(tenant: TenantOption, file: FileArg, db: DbOption = None, as_json: JsonOption = False) -> None:
    """What each step of FILE would convert, set aside or refuse; changes nothing."""
    run(db, as_json, lambda m: _migrations().plan(m, tenant, file), show_plan, create=False)


@schema.command("apply")
def apply(tenant: TenantOption, file: FileArg, by: ByOption = None, backfill: BackfillOption = None,
          batch: BatchOption = 500, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Record every step of FILE in one transaction (all of them, or none), then convert.

    Large attributes are converted in batches with a progress bar. Interrupted, it is
    safe to run again: it records nothing twice and resumes after the last batch done."""
    def show(found: list[dict[str, Any]]) -> None:
        show_plan(found)
        console.print(f"applied {len(found)} step(s) from {file.name}", highlight=False, markup=False)

    def call(memory: Memory) -> list[dict[str, Any]]:
        with backfill_bars(tenant, as_json) as bar:
            result: list[dict[str, Any]] = _migrations().apply(memory, tenant, file, decided_by=by or "cli",
                                                               progress=bar, batch=batch, backfill=backfill)
        return result

    run(db, as_json, call, show, create=False)


def register(app: typer.Typer) -> None:
    app.add_typer(schema, name="schema")
