"""``sgam threads``: checkpoint memory, so a person can see where a run stopped and what it
waits for, prune its history or erase it (``SgamSaver``; needs ``sgam[langgraph]``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .._core.time import parse_timestamp
from .output import DbOption, JsonOption, TenantOption, console, run
from .tables import compact_time, print_table

if TYPE_CHECKING:
    from ..langgraph import SgamSaver
    from ..langgraph.threads import ThreadDetail, ThreadSummary
    from ..memory.facade import Memory

threads = typer.Typer(help="Checkpoint threads of LangGraph runs: list, show, prune, forget.", no_args_is_help=True)


def _view() -> Any:
    """The threads view, imported when a command runs: it needs LangGraph."""
    try:
        from ..langgraph import threads as view
    except ImportError as error:
        raise typer.BadParameter(f"sgam threads needs LangGraph: pip install 'sgam[langgraph]' ({error})") from None
    return view


def _saver(memory: Memory, tenant: str) -> SgamSaver:
    saver: SgamSaver = _view().SgamSaver(memory, tenant=tenant)
    return saver


def _when(instant: str | None) -> str:
    """An instant of a thread's view as a table shows every time: to the second, in UTC."""
    return "-" if instant is None else compact_time(parse_timestamp(instant, "time"))


def show_list(found: list[ThreadSummary]) -> None:
    print_table(("thread", "retention", "checkpoints", "first", "last"),
                [(t.thread_id, t.retention, str(t.checkpoints), _when(t.first_at), _when(t.last_at)) for t in found],
                empty="no threads")


def show_detail(detail: ThreadDetail) -> None:
    thread = detail.thread
    console.print(f"thread {thread.thread_id} · {detail.status}"
                  + (f" (next: {', '.join(detail.next)})" if detail.next else "")
                  + f" · retention {thread.retention} · {thread.checkpoints} checkpoint"
                  f"{'' if thread.checkpoints == 1 else 's'}"
                  + (f" · about {', '.join(detail.subjects)}" if detail.subjects else ""), markup=False)
    print_table(("checkpoint", "taken", "namespace", "step", "source", "pending writes", "waiting for"),
                [(c.checkpoint_id, _when(c.at), c.checkpoint_ns or "-", str(c.step), str(c.source),
                  ", ".join(c.pending_writes) or "-", "; ".join(_shown(value) for value in c.waiting_for) or "-")
                 for c in detail.checkpoints],
                empty="no checkpoints", fold=("waiting for",))
    if detail.values:
        print_table(("channel", "value"), [(name, _shown(value)) for name, value in detail.values.items()],
                    title="state at the newest checkpoint", fold=("value",))
    print_table(("action", "status", "began", "finished", "attempts", "last error"),
                [(a.action_key, a.status, a.began_at, a.finished_at or "-", str(a.attempts), a.error or "-")
                 for a in detail.actions],
                empty="no actions", fold=("last error",))


def register(app: typer.Typer) -> None:
    @threads.command("list")
    def list_command(
        tenant: TenantOption,
        limit: Annotated[int, typer.Option(help="At most this many threads.", min=1)] = 100,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """The tenant's threads: retention class, checkpoints, first and last."""
        run(db, as_json, lambda m: _view().list_threads(m, tenant, limit), show_list, create=False)

    @threads.command("show")
    def show_command(
        tenant: TenantOption,
        thread_id: Annotated[str, typer.Argument(help="The thread's id.")],
        limit: Annotated[int, typer.Option(help="At most this many checkpoints, newest first.", min=1)] = 20,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """A thread's checkpoints, newest first, and what its run waits for.

        Each checkpoint with its pending writes, the state's values, and the actions the
        run began and finished."""
        run(db, as_json, lambda m: _view().show_thread(m, tenant, thread_id, limit), show_detail, create=False)

    @threads.command("prune")
    def prune_command(
        tenant: TenantOption,
        thread_ids: Annotated[list[str], typer.Argument(help="The threads to prune.")],
        strategy: Annotated[str, typer.Option(help="keep_latest (what a resume needs) or delete.")] = "keep_latest",
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Prune threads to the newest checkpoint of each namespace (a run stays resumable)."""
        def call(memory: Memory) -> list[ThreadSummary]:
            saver, summary = _saver(memory, tenant), _view().thread_summary
            for thread_id in thread_ids:
                summary(saver, thread_id)
            saver.prune(thread_ids, strategy=strategy)
            return [] if strategy == "delete" else [summary(saver, thread_id) for thread_id in thread_ids]

        run(db, as_json, call, show_list, create=False)

    @threads.command("forget")
    def forget_command(
        tenant: TenantOption,
        thread_id: Annotated[str, typer.Argument(help="The thread to erase.")],
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Erase a thread whole: every checkpoint and pending write (audited without content)."""
        run(db, as_json, lambda m: _saver(m, tenant).forget_thread(thread_id),
            lambda result: console.print(f"erased thread {thread_id}", markup=False), create=False)

    app.add_typer(threads, name="threads")


def _shown(value: Any) -> str:
    """A value the thread view already made JSON data, as one line of JSON (the boundary's
    encoder is not imported here: ``sgam --help`` loads no pydantic)."""
    return json.dumps(value, ensure_ascii=False)
