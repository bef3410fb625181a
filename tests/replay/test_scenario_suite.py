"""Every scenario under tests/scenarios/ (recursively) must pass."""

from __future__ import annotations

from pathlib import Path

from sgam.cli.replay import run_files

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def test_every_scenario_passes(replay_db: str | None) -> None:
    results = run_files([SCENARIOS], replay_db)
    assert len(results) >= 35
    failed = [result.to_dict() for result in results if not result.passed]
    assert not failed, failed


def test_every_scenario_has_a_name_and_a_comment() -> None:
    for path in sorted(SCENARIOS.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("#"), f"{path} should open with a comment on what it pins"
        assert "\nname: " in text, path
