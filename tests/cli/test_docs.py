"""The README's command reference keeps up with the CLI: every command is listed."""

from __future__ import annotations

from pathlib import Path

import typer

from sgam.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def command_names() -> list[str]:
    group = typer.main.get_command(app)
    names: list[str] = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        children = getattr(command, "commands", None)
        names += [f"{name} {child}" for child in children] if children else [name]
    return names


def test_every_command_is_in_the_readme_reference() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [name for name in command_names() if f"| `sgam {name}` |" not in text]
    assert not missing, f"add these commands to the README's command reference: {missing}"


def test_the_readme_names_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
