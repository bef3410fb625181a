"""Extraction commands: remember, extract, inspect extractions, settle held candidates, work the queue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from .._core.errors import SgamError
from .browse import LimitOption, fetch_limited
from .inputs import TEXT_HELP, read_text
from .ledger import show_named, show_result
from .output import DbOption, JsonOption, TenantOption, console, fail, open_memory, print_json, run
from .tables import compact_time, json_value, print_table

if TYPE_CHECKING:
    from ..extraction import Extraction, HeldCandidate, Remembered

IdArg = Annotated[int, typer.Argument(help="Id of the held candidate.")]


def show_extraction(found: Extraction) -> None:
    tokens = f"{found.prompt_tokens or '-'} in / {found.completion_tokens or '-'} out"
    console.print(
        f"extraction {found.id} of episode {found.episode_id} (attempt {found.attempt}): "
        f"{found.status}  model {found.model or '-'}  tokens {tokens}  {found.latency_ms or 0:.0f} ms",
        highlight=False, markup=False, soft_wrap=True,
    )
    if found.error:
        console.print(f"  error: {found.error}", highlight=False, markup=False, soft_wrap=True)
    print_table(
        ("#", "candidate", "evidence", "decision", "reason"),
        [(str(d.index), _candidate(d.candidate), str(d.candidate.get("evidence", "")),
          d.outcome.value + (f" ({d.effect})" if d.effect else ""), d.reason or "") for d in found.decisions],
        fold=("evidence", "reason"),
    )
    if found.raw_reply is not None:
        console.print("  raw reply: " + found.raw_reply, highlight=False, markup=False, soft_wrap=True)


def _candidate(c: dict[str, Any]) -> str:
    return f"{c.get('subject')}.{c.get('attribute')} = {json_value(c.get('value'))} ({c.get('change')})"


def show_extractions(found: list[Extraction]) -> None:
    print_table(
        ("id", "episode", "attempt", "recorded", "status", "accepted", "held", "rejected", "error"),
        [(str(e.id), e.episode_id, str(e.attempt), compact_time(e.recorded_at), e.status,
          str(sum(1 for d in e.decisions if d.outcome.value in ("accepted", "promoted"))),
          str(sum(1 for d in e.decisions if d.outcome.value in ("pending", "buffered"))),
          str(sum(1 for d in e.decisions if d.outcome.value == "rejected")), e.error or "") for e in found],
        empty="no extractions", fold=("error",),
    )


def show_held(found: list[HeldCandidate]) -> None:
    print_table(
        ("id", "hold", "status", "subject", "attribute", "value", "valid from", "episode", "evidence"),
        [(str(h.id), h.hold, h.status, h.subject, h.attribute, json_value(h.value), compact_time(h.valid_from),
          h.episode_id, h.evidence) for h in found],
        empty="no held candidates", fold=("evidence",),
    )


def show_remembered(found: Remembered) -> None:
    if found.queued:
        console.print(f"episode {found.episode.id} recorded; extraction queued for `sgam worker`")
    elif found.extraction is not None:
        show_extraction(found.extraction)


def register(app: typer.Typer) -> None:
    extractions = typer.Typer(
        help="Inspect extractions: raw replies, decisions and reasons.", no_args_is_help=True
    )
    app.add_typer(extractions, name="extractions")

    @app.command("remember")
    def remember(
        tenant: TenantOption,
        id: Annotated[str, typer.Argument(help="Episode id, unique in the tenant.")],
        text: Annotated[str, typer.Argument(help=TEXT_HELP)],
        at: Annotated[str, typer.Option("--at", help="When it happened (RFC 3339 with zone).")],
        speaker: Annotated[str | None, typer.Option(help="Who said it.")] = None,
        queue: Annotated[bool, typer.Option("--queue", help="Queue extraction for `sgam worker`.")] = False,
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Record an episode and extract facts from it with the configured model (or queue it)."""
        run(
            db,
            as_json,
            lambda m: m.remember(tenant, id, at, read_text(text), speaker=speaker, extract=not queue),
            show_remembered,
        )

    @app.command("extract")
    def extract(
        tenant: TenantOption,
        episode: Annotated[str, typer.Argument(help="Id of a recorded episode.")],
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Run extraction on a recorded episode with the configured model."""
        run(db, as_json, lambda m: m.extract(tenant, episode), show_extraction)

    @extractions.command("list")
    def list_(
        tenant: TenantOption,
        episode: Annotated[str | None, typer.Option(help="Only this episode.")] = None,
        limit: LimitOption = 100,
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Extraction records of the tenant, newest first."""
        run(db, as_json, lambda m: fetch_limited(limit, lambda n: m.extractions(tenant, episode=episode, limit=n),
                                                 "extractions"), show_extractions, create=False)

    @extractions.command("show")
    def show(
        tenant: TenantOption,
        extraction_id: Annotated[int, typer.Argument(help="Id of the extraction.")],
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """One extraction: every candidate, its decision and reason, and the raw reply."""
        run(db, as_json, lambda m: m.extraction(tenant, extraction_id), show_extraction, create=False)

    @extractions.command("held")
    def held(
        tenant: TenantOption,
        status: Annotated[
            str | None, typer.Option(help="open, confirmed, rejected or promoted; all if --all.")
        ] = "open",
        all_: Annotated[bool, typer.Option("--all", help="Every status.")] = False,
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Candidates held back: pending confirmation or buffered as weak signals."""
        run(db, as_json, lambda m: m.held(tenant, status=None if all_ else status), show_held, create=False)

    @app.command("confirm")
    def confirm(
        tenant: TenantOption, held_id: IdArg,
        subject: Annotated[
            str | None, typer.Option(help="The subject it is about, for a name held as ambiguous.")
        ] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Confirm a held candidate: write it now, sourced from its episode."""
        run(db, as_json, lambda m: m.confirm(tenant, held_id, subject=subject), _show_confirmed)

    @app.command("reject")
    def reject(
        tenant: TenantOption, held_id: IdArg, db: DbOption = None, as_json: JsonOption = False
    ) -> None:
        """Reject a held candidate: it is never written."""
        run(db, as_json, lambda m: m.reject(tenant, held_id), lambda h: show_held([h]))

    @app.command("worker")
    def worker(
        tenant: Annotated[
            str | None, typer.Option("--tenant", "-t", help="Only this tenant's queue.")
        ] = None,
        batch: Annotated[int, typer.Option(help="Jobs leased at a time.")] = 4,
        lease: Annotated[
            float, typer.Option(help="Seconds a lease lasts before another worker may take over.")
        ] = 300.0,
        max_attempts: Annotated[int, typer.Option(help="Tries per episode before it is marked failed.")] = 3,
        forever: Annotated[
            bool, typer.Option("--forever", help="Keep polling instead of stopping when idle.")
        ] = False,
        progress: Annotated[bool, typer.Option(help="Show a progress bar over the backlog.")] = True,
        purge_every: Annotated[float, typer.Option(
            "--purge-every", help="Seconds between purges of what is past its deadline (0: never).")] = 60.0,
        db: DbOption = None,
        as_json: JsonOption = False,
    ) -> None:
        """Extract queued episodes in the background (at least once; re-runs never duplicate facts)."""
        from ..boundary import status_of
        from ..extraction import Worker

        with open_memory(db, as_json) as memory:
            try:
                stats: Any = Worker(
                    memory, tenant=tenant, batch=batch, lease_seconds=lease, max_attempts=max_attempts,
                    purge_every=purge_every if purge_every > 0 else None,
                ).run(until_idle=not forever, progress=progress and not as_json)
            except SgamError as exc:
                fail(exc, as_json)
                return
        if as_json:
            print_json({"jobs": stats.jobs, "done": stats.done, "failed": stats.failed, "queued": stats.queued,
                        "erased": stats.erased, "attempts": stats.attempts, "purged": stats.purged})
        else:
            jobs = f"{stats.jobs} job{'' if stats.jobs == 1 else 's'}"
            console.print(f"{jobs}: {stats.done} done, {stats.failed} failed for good, {stats.queued} queued, "
                          f"{stats.erased} erased meanwhile "
                          f"({stats.attempts} extraction attempts); {stats.purged} purged past their deadline",
                          highlight=False, soft_wrap=True)
            if stats.failed:
                console.print("see why with `sgam extractions list`", highlight=False, markup=False)
        raise typer.Exit(status_of("model").exit_status if stats.failed else 0)


def _show_confirmed(done: Any) -> None:
    """A confirmed fact shows its write; a confirmed alias proposal, the alias step."""
    from .._core.model import SubjectName

    if isinstance(done, SubjectName):
        show_named(done)
    else:
        show_result(done)
