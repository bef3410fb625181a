"""The scenarios of schema evolution (tests/scenarios/schema/) on each backend; the
whole suite runs them too, this file runs them alone."""

from __future__ import annotations

from pathlib import Path

from sgam.cli.replay import run_files

SCHEMA = Path(__file__).resolve().parents[1] / "scenarios" / "schema"


def test_every_schema_scenario_passes(replay_db: str | None) -> None:
    results = run_files([SCHEMA], replay_db)
    assert len(results) >= 3
    failed = [result.to_dict() for result in results if not result.passed]
    assert not failed, failed
