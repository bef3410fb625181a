"""``sgam export``, ``sgam import`` and ``sgam move``: a tenant carried between stores
(docs/portability.md), with a progress bar on stderr unless ``--json``."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .output import DbOption, JsonOption, TenantOption, console, errors, open_memory, run

FileArg = Annotated[str, typer.Argument(help="The export file; '-' for standard output or input; "
                                             "a name ending .gz is gzip.")]


@contextmanager
def bar(label: str, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """A ``progress`` callback drawing one bar of records on stderr (none when ``quiet``)."""
    bars = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("records"),
                    TimeElapsedColumn(), console=errors, transient=False, disable=quiet)
    task = bars.add_task(label, total=None)

    def show(done: int, total: int) -> None:
        bars.update(task, completed=done, total=total)

    with bars:
        yield show


@contextmanager
def readable_twice(file: str) -> Iterator[str]:
    """An import reads its file twice (check, then apply): standard input is kept in a
    temporary file first."""
    if file != "-":
        yield file
        return
    with tempfile.TemporaryDirectory(prefix="sgam-import-") as folder:
        spooled = Path(folder) / "stdin.jsonl"
        with spooled.open("w", encoding="utf-8", newline="\n") as out:
            shutil.copyfileobj(sys.stdin, out)
        yield str(spooled)


def _show(result: Any) -> None:
    console.print(", ".join(f"{key}: {value}" for key, value in vars(result).items() if key != "counts"))


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        tenant: TenantOption, file: FileArg,
        no_threads: Annotated[bool, typer.Option("--no-threads", help="Leave LangGraph checkpoint threads out.")]
        = False,
        subject: Annotated[str | None, typer.Option(
            "--subject", help="Only what the tenant holds about this subject (an access request's answer).")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Write everything the tenant holds, every instant of its history, to FILE."""
        quiet = as_json or file == "-"

        def call(memory: Any, progress: Callable[[int, int], None]) -> Any:
            if subject is not None:
                return memory.export_subject(tenant, subject, file, progress=progress)
            return memory.export_tenant(tenant, file, threads=not no_threads, progress=progress)

        with bar(f"export {tenant}", quiet) as progress:
            run(db, as_json, lambda m: call(m, progress), _show if file != "-" else lambda _: None, create=False)

    @app.command("import")
    def import_(
        tenant: TenantOption, file: FileArg, db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Recreate an exported tenant in this store as TENANT (which must hold nothing)."""
        with readable_twice(file) as path, bar(f"import {tenant}", as_json) as progress:
            run(db, as_json, lambda m: m.import_tenant(tenant, path, progress=progress), _show)

    @app.command("move")
    def move(
        tenant: TenantOption,
        to: Annotated[str, typer.Option("--to", help="The destination store's URL.")],
        erase_source: Annotated[bool, typer.Option(
            "--erase-source", help="After the destination verified, delete the tenant from the source.")] = False,
        no_threads: Annotated[bool, typer.Option("--no-threads", help="Leave LangGraph checkpoint threads out.")]
        = False,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Export, import into --to and verify; with --erase-source, then delete the source.

        Verified means the destination exports the same records; only then does
        --erase-source delete the tenant from the source."""
        with open_memory(to, as_json) as destination, bar(f"move {tenant}", as_json) as progress:
            run(db, as_json, lambda m: m.move_tenant(tenant, destination, erase_source=erase_source,
                                                     threads=not no_threads, progress=progress),
                _show, create=False)
