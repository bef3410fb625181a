"""The demo is the newcomer's first contact: it must tell the story with the right answers."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app


def test_demo_tells_the_passport_story(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    result = CliRunner().invoke(app, ["demo", "--db", db], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.stdout
    out = result.stdout
    assert "ConflictError" in out
    with Memory(db) as memory:
        current = memory.get("acme", "mira", "passport_deadline")
        assert current is not None and current.value == "2026-07-15"  # e2 was forgotten at the end
        assert memory.episode("acme", "e2") is None
        may = memory.get("acme", "mira", "passport_deadline", at="2026-05-31T00:00:00Z")
        assert may is not None and may.source == "e0"


def test_demo_runs_again_on_the_same_database(tmp_path: Path) -> None:
    """The story erases e2 and an erased id stays reserved: a second run tells it again
    under a tenant of its own instead of failing."""
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    first = CliRunner().invoke(app, ["demo", "--db", db], env={"COLUMNS": "160"})
    second = CliRunner().invoke(app, ["demo", "--db", db], env={"COLUMNS": "160"})
    assert first.exit_code == 0 and second.exit_code == 0, second.stdout
    assert "error" not in second.stdout and "this one is tenant acme-2" in second.stdout
    assert second.stdout.count("ConflictError") == 1
    with Memory(db) as memory:
        for tenant in ("acme", "acme-2"):
            current = memory.get(tenant, "mira", "passport_deadline")
            assert current is not None and current.value == "2026-07-15"
