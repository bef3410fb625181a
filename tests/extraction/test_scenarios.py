"""Every extraction scenario passes through the same entry point as ``sgam replay``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam.cli.replay import run_files

FOLDER = Path(__file__).resolve().parents[1] / "scenarios" / "extraction"
FILES = sorted(FOLDER.glob("*.yaml"))


def test_the_folder_has_scenarios() -> None:
    assert len(FILES) >= 5


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_passes(path: Path) -> None:
    (result,) = run_files([path], None)
    assert result.passed, result.to_dict()
