"""``sgam replay``: run scenario files, exit 0 (all hold), 1 (some fail) or 2 (a bad file).

A file that cannot be used does not stop the others: every usable scenario runs, and
each unusable file is reported with the reason (and step) that makes it unusable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from .._core.errors import SgamError
from .._core.values import storable_text
from .output import DbOption, JsonOption, console, errors, print_json, report_error

if TYPE_CHECKING:
    from ..replay import ScenarioFileError, ScenarioResult


@dataclass(frozen=True, slots=True)
class BadFile:
    """A scenario file that could not be used, and why."""

    file: str
    step: int | None
    reason: str
    message: str

    @classmethod
    def of(cls, exc: ScenarioFileError) -> BadFile:
        return cls(exc.path, exc.step, exc.reason, exc.message)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "step": self.step, "message": self.message}


def _files(paths: list[Path], bad: list[BadFile]) -> list[Path]:
    from ..replay import ScenarioFileError, load_path

    found: list[Path] = []
    for path in paths:
        try:
            found += load_path(path)
        except ScenarioFileError as exc:
            bad.append(BadFile.of(exc))
    return found


def run_files(paths: list[Path], db: str | None) -> list[ScenarioResult]:
    """Run the scenarios, each in a fresh store; the first unusable file raises its error."""
    from ..replay import ScenarioFileError

    results, bad = replay_files(paths, db)
    if bad:
        raise ScenarioFileError(bad[0].file, bad[0].reason, bad[0].step)
    return results


def replay_files(paths: list[Path], db: str | None, keep: bool = False) -> tuple[list[ScenarioResult], list[BadFile]]:
    """Run every usable scenario, each in a fresh store; collect the files that are not.
    With ``keep``, the one scenario runs in the store at ``db``, which is kept."""
    from ..memory.facade import Memory
    from ..replay import ScenarioFileError, load_scenario, run_scenario
    from ..store import temporary_store

    bad: list[BadFile] = []
    results = []
    files = _files(paths, bad)
    if keep:
        return _kept(files, bad, db), bad
    for file in files:
        try:
            scenario = load_scenario(file)
        except ScenarioFileError as exc:
            bad.append(BadFile.of(exc))
            continue
        with temporary_store(db) as url, Memory(url) as memory:
            results.append(run_scenario(scenario, memory))
    return results, bad


def _kept(files: list[Path], bad: list[BadFile], db: str | None) -> list[ScenarioResult]:
    """The one scenario of ``files`` run in the store at ``db`` (created if missing), whose
    tenants must hold nothing yet: one scenario per database."""
    from .._core.errors import ConflictError, ValidationError
    from ..memory.facade import Memory
    from ..replay import ScenarioFileError, load_scenario, run_scenario
    from ..store._portable import PORTABLE_TABLES

    if db is None:
        raise ValidationError("db", db, "--keep keeps the scenario's store where --db says: give --db")
    if len(files) + len(bad) != 1:
        raise ValidationError("paths", [str(f) for f in files][:5],
                              "--keep keeps one scenario's store: give exactly one scenario file")
    if bad:
        return []
    try:
        scenario = load_scenario(files[0])
    except ScenarioFileError as exc:
        bad.append(BadFile.of(exc))
        return []
    with Memory(db) as memory:
        for tenant in sorted({scenario.tenant, *(step.tenant for step in scenario.steps)}):
            with memory.backend.read(tenant) as reader:
                held = reader.portable().tables_holding_rows(PORTABLE_TABLES)
            if held:
                raise ConflictError(f"tenant {tenant!r} of the store at --db already holds data (in {held[0]}): "
                                    "--keep runs one scenario per database")
        return [run_scenario(scenario, memory)]


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay(
        paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders (read recursively).")],
        db: DbOption = None, as_json: JsonOption = False,
        keep: Annotated[bool, typer.Option(
            "--keep", help="Run the one scenario in the store --db names and keep it (to inspect, export or query "
                           "with SQL).")] = False,
    ) -> None:
        """Run replay scenarios, each in a fresh store, and report every failed expectation."""
        try:
            results, bad = replay_files(paths, db, keep)
        except SgamError as exc:  # the store for the scenarios could not be made
            report_error(exc, as_json)
            raise typer.Exit(2) from None
        passed = sum(result.passed for result in results)
        if as_json:
            print_json({
                "passed": passed, "failed": len(results) - passed,
                "scenarios": [result.to_dict() for result in results],
                "bad_files": [problem.to_dict() for problem in bad],
            })
        else:
            _report(results, bad, passed)
        raise typer.Exit(2 if bad else 0 if passed == len(results) else 1)


def _report(results: list[ScenarioResult], bad: list[BadFile], passed: int) -> None:
    for result in results:
        status = "[green]PASS[/green]" if result.passed else "[red]FAIL[/red]"
        console.print(f"{status} {escape(storable_text(result.name))}  [dim]{escape(storable_text(result.file))}[/dim]",
                      highlight=False,
                      soft_wrap=True)
        for failure in result.failures:
            console.print(f"    step {failure.step}: expected {json.dumps(failure.expected)}, "
                          f"found {json.dumps(failure.actual)}", highlight=False, markup=False, soft_wrap=True)
    for problem in bad:
        errors.print(f"error: {problem.message}", highlight=False, markup=False, soft_wrap=True)
    summary = f"{passed} passed, {len(results) - passed} failed"
    console.print(summary + (f", {len(bad)} unusable file{'s' if len(bad) != 1 else ''}" if bad else ""))
