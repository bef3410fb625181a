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
