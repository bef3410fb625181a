"""The scenarios of subjects, sets and relations (tests/scenarios/shape/) on each backend;
the whole suite runs them too, this file runs them alone."""

from __future__ import annotations

from pathlib import Path

from sgam.cli.replay import run_files

SHAPE = Path(__file__).resolve().parents[1] / "scenarios" / "shape"


def test_every_shape_scenario_passes(replay_db: str | None) -> None:
    results = run_files([SHAPE], replay_db)
    assert len(results) >= 4
    failed = [result.to_dict() for result in results if not result.passed]
    assert not failed, failed
