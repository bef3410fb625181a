"""The README's command reference keeps up with the CLI: every command is listed."""

from __future__ import annotations

import subprocess
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


def make_dry_run(target: str, venv: Path) -> str:
    done = subprocess.run(["make", "-n", target, f"VENV={venv}"], cwd=README.parent, capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_make_demo_installs_only_what_the_demo_needs(tmp_path: Path) -> None:
    installs = [line for line in make_dry_run("demo", tmp_path / "venv").splitlines() if "pip install" in line]
    assert installs and not any("dev" in line or "embeddings" in line for line in installs), installs
    assert any("[dev" in line for line in make_dry_run("test", tmp_path / "venv").splitlines())


def test_the_readme_says_how_to_get_sgam_on_the_path() -> None:
    text = README.read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in text and ".venv/bin/sgam" in text


def test_the_readme_lists_every_exit_status() -> None:
    text = README.read_text(encoding="utf-8")
    for status in ("0 ok", "1 failed expectations", "2 bad usage", "3 validation", "4 not found", "5 conflict",
                   "6 storage error", "7 model"):
        assert status in text, status


def test_the_project_cites_its_own_description_of_the_replay_format() -> None:
    root = README.parent
    texts = [README, *(root / "docs").rglob("*.md"), *(root / "src").rglob("*.py")]
    citing = [str(path.relative_to(root)) for path in texts if "spec/replay.md" in path.read_text(encoding="utf-8")]
    assert not citing, f"cite docs/replay.md instead of spec/replay.md in {citing}"
    replay = (root / "docs" / "replay.md").read_text(encoding="utf-8")
    for section in ("## Running scenarios", "## Operations", "## Extraction", "## Lifecycle", "### Consent",
                    "## Expectations", "expect_episode", "derived_from", "expires_at", "`denied`"):
        assert section in replay, section
