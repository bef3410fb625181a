"""``sgam threads``: checkpoint memory, so a person can see where a run stopped and what it
waits for, prune its history or erase it (``SgamSaver``; needs ``sgam[langgraph]``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from .._errors import NotFoundError
from .._memory import Memory
from .._time import format_timestamp, from_micros
from .output import DbOption, JsonOption, TenantOption, console, run

if TYPE_CHECKING:
    from ..langgraph import SgamSaver

threads = typer.Typer(help="Checkpoint threads of LangGraph runs: list, show, prune, forget.", no_args_is_help=True)


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    thread_id: str
    retention: str
    checkpoints: int
    first_at: str | None
    last_at: str | None


@dataclass(frozen=True, slots=True)
class CheckpointSummary:
    checkpoint_id: str
    checkpoint_ns: str
    parent_id: str | None
    step: Any
    source: Any
    pending_writes: list[str]
    """The channels a task has written to since the checkpoint (``__interrupt__``: a run waits)."""
    waiting_for: list[Any]
    """The values of the interrupts the run is stopped at, if any."""


@dataclass(frozen=True, slots=True)
class ThreadDetail:
    thread: ThreadSummary
    subjects: list[str]
    checkpoints: list[CheckpointSummary]
    """Newest first: time travel goes down the list."""


def _saver(memory: Memory, tenant: str) -> SgamSaver:
    try:
        from ..langgraph import SgamSaver
    except ImportError as error:
        raise typer.BadParameter(f"sgam threads needs LangGraph: pip install 'sgam[langgraph]' ({error})") from None
    return SgamSaver(memory, tenant=tenant)


def _instant(micros: int | None) -> str | None:
    return None if micros is None else format_timestamp(from_micros(micros))


def _summary(saver: SgamSaver, thread_id: str) -> ThreadSummary:
    with saver.memory.ledger.read(saver.tenant, "threads") as reader:
        row = reader.checkpoints().thread(thread_id)
    if row is None:
        raise NotFoundError(f"thread: no thread {thread_id!r} in tenant {saver.tenant!r}",
                            field="thread_id", value=thread_id)
    return ThreadSummary(row.thread_id, row.retention, row.checkpoints, _instant(row.first_at), _instant(row.last_at))


def list_threads(memory: Memory, tenant: str, limit: int) -> list[ThreadSummary]:
    return [ThreadSummary(r.thread_id, r.retention, r.checkpoints, _instant(r.first_at), _instant(r.last_at))
            for r in _saver(memory, tenant).threads(limit)]


def show_thread(memory: Memory, tenant: str, thread_id: str, limit: int) -> ThreadDetail:
    saver = _saver(memory, tenant)
    summary = _summary(saver, thread_id)
    with memory.ledger.read(tenant, "threads") as reader:
        subjects = reader.checkpoints().thread_subjects(thread_id)
    found = []
    for item in saver.list({"configurable": {"thread_id": thread_id}}, limit=limit):
        configurable = item.config["configurable"]
        writes = item.pending_writes or []
        found.append(CheckpointSummary(
            configurable["checkpoint_id"], configurable.get("checkpoint_ns", ""),
            (item.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
            item.metadata.get("step"), item.metadata.get("source"),
            [channel for _, channel, _ in writes],
            [getattr(value, "value", value) for _, channel, value in writes if channel == "__interrupt__"],
        ))
    return ThreadDetail(summary, subjects, found)


def show_list(found: list[ThreadSummary]) -> None:
    table = Table("thread", "retention", "checkpoints", "first", "last")
    for thread in found:
        table.add_row(thread.thread_id, thread.retention, str(thread.checkpoints), thread.first_at or "-",
                      thread.last_at or "-")
    console.print(table)


def show_detail(detail: ThreadDetail) -> None:
    thread = detail.thread
    console.print(f"thread {thread.thread_id} · retention {thread.retention} · {thread.checkpoints} checkpoint"
                  f"{'' if thread.checkpoints == 1 else 's'}"
                  + (f" · about {', '.join(detail.subjects)}" if detail.subjects else ""), markup=False)
    table = Table("checkpoint", "namespace", "step", "source", "pending writes", "waiting for")
    for checkpoint in detail.checkpoints:
        table.add_row(checkpoint.checkpoint_id, checkpoint.checkpoint_ns or "-", str(checkpoint.step),
                      str(checkpoint.source), ", ".join(checkpoint.pending_writes) or "-",
                      "; ".join(map(str, checkpoint.waiting_for)) or "-")
    console.print(table)


def register(app: typer.Typer) -> None:
    @threads.command("list")
    def list_command(
        tenant: TenantOption,
        limit: Annotated[int, typer.Option(help="At most this many threads.", min=1)] = 100,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """The tenant's threads: retention class, checkpoints, first and last."""
        run(db, as_json, lambda m: list_threads(m, tenant, limit), show_list, create=False)

    @threads.command("show")
    def show_command(
        tenant: TenantOption,
        thread_id: Annotated[str, typer.Argument(help="The thread's id.")],
        limit: Annotated[int, typer.Option(help="At most this many checkpoints, newest first.", min=1)] = 20,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """A thread's checkpoints, newest first, with pending writes and what the run waits for."""
        run(db, as_json, lambda m: show_thread(m, tenant, thread_id, limit), show_detail, create=False)

    @threads.command("prune")
    def prune_command(
        tenant: TenantOption,
        thread_ids: Annotated[list[str], typer.Argument(help="The threads to prune.")],
        strategy: Annotated[str, typer.Option(help="keep_latest (what a resume needs) or delete.")] = "keep_latest",
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Prune threads to the newest checkpoint of each namespace (a run stays resumable)."""
        def call(memory: Memory) -> list[ThreadSummary]:
            saver = _saver(memory, tenant)
            for thread_id in thread_ids:
                _summary(saver, thread_id)
            saver.prune(thread_ids, strategy=strategy)
            return [] if strategy == "delete" else [_summary(saver, thread_id) for thread_id in thread_ids]

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
