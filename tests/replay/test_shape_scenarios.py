"""The scenarios of subjects, sets and relations (tests/scenarios/shape/) and of schema
evolution (tests/scenarios/schema/) on each backend; the whole suite runs them too, this
file runs them alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam.cli.replay import run_files

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.mark.parametrize(("folder", "at_least"), [("shape", 7), ("schema", 3)])
def test_every_scenario_of_the_folder_passes(replay_db: str | None, folder: str, at_least: int) -> None:
    results = run_files([SCENARIOS / folder], replay_db)
    assert len(results) >= at_least
    failed = [result.to_dict() for result in results if not result.passed]
    assert not failed, failed
