"""A migration's backfill on the terminal: one Rich progress bar per step, on stderr (so
``--json`` output stays one document), and what to run when it is interrupted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from .output import errors

if TYPE_CHECKING:
    from .._core.model import Backfill

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""


@contextmanager
def backfill_bars(tenant: str, quiet: bool = False) -> Iterator[Callable[[Backfill], None]]:
    """A ``progress`` callback for ``Memory.run_backfill`` (no bars when ``quiet``: under
    ``--json``, whose reader is a program); Ctrl-C ends the command with a line saying
    that what committed stays done and how to resume."""
    bars = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("subjects, {task.fields[batches]} batches"), TimeElapsedColumn(),
                    console=errors, transient=False, disable=quiet)
    tasks: dict[int, TaskID] = {}

    def show(status: Backfill) -> None:
        if status.step not in tasks:
            tasks[status.step] = bars.add_task(f"step {status.step} {status.kind} {status.attribute}",
                                               total=status.subjects_total, batches=0)
        bars.update(tasks[status.step], completed=status.subjects_done, total=status.subjects_total,
                    batches=status.batches_done)

    try:
        with bars:
            yield show
    except KeyboardInterrupt:
        errors.print(f"interrupted: every batch that committed stays done; `sgam schema backfill --tenant "
                     f"{tenant}` resumes after it", highlight=False, markup=False)
        raise typer.Exit(INTERRUPTED) from None
