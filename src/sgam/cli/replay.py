"""``sgam replay``: run scenario files, exit 0 (all hold), 1 (some fail) or 2 (bad file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .._errors import SgamError
from .._memory import Memory
from .._values import storable_text
from ..replay import ScenarioFileError, ScenarioResult, load_path, load_scenario, run_scenario
from ..store import temporary_store
from .output import DbOption, JsonOption, console, errors, json_text


def run_files(paths: list[Path], db: str | None) -> list[ScenarioResult]:
    """Load every file first (a bad one stops everything), then run each in a fresh store."""
    files = [file for path in paths for file in load_path(path)]
    scenarios = [load_scenario(file) for file in files]
    results = []
    for scenario in scenarios:
        with temporary_store(db) as url, Memory(url) as memory:
            results.append(run_scenario(scenario, memory))
    return results


def register(app: typer.Typer) -> None:
    @app.command("replay")
    def replay(
        paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders (read recursively).")],
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Run replay scenarios, each in a fresh store, and report every failed expectation."""
        try:
            results = run_files(paths, db)
        except ScenarioFileError as exc:
            errors.print(f"error: {storable_text(exc.message)}", highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except SgamError as exc:
            errors.print(f"error ({exc.kind}): {storable_text(exc.message)}", highlight=False, markup=False,
                         soft_wrap=True)
            raise typer.Exit(2) from None
        passed = sum(result.passed for result in results)
        if as_json:
            typer.echo(json_text({
                "passed": passed, "failed": len(results) - passed,
                "scenarios": [result.to_dict() for result in results],
            }))
        else:
            for result in results:
                status = "[green]PASS[/green]" if result.passed else "[red]FAIL[/red]"
                name, file = storable_text(result.name), storable_text(result.file)
                console.print(f"{status} {escape(name)}  [dim]{escape(file)}[/dim]", highlight=False, soft_wrap=True)
                for failure in result.failures:
                    console.print(f"    step {failure.step}: expected {json.dumps(failure.expected)}, "
                                  f"found {json.dumps(failure.actual)}", highlight=False, markup=False,
                                  soft_wrap=True)
            console.print(f"{passed} passed, {len(results) - passed} failed")
        raise typer.Exit(0 if passed == len(results) else 1)
