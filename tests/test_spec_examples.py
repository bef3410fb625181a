"""The replay format's own examples must pass unchanged, on every backend.

The examples live in the shared spec folder beside the checkout, which a clone of sgam
alone does not have: there the test skips. The project's own scenarios (tests/scenarios,
run by tests/replay) carry the same stories and run everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam.cli.replay import run_files

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"


@pytest.mark.skipif(not SPEC_EXAMPLES.is_dir(), reason=f"no spec examples beside the checkout ({SPEC_EXAMPLES})")
def test_spec_examples_pass(replay_db: str | None) -> None:
    results = run_files([SPEC_EXAMPLES], replay_db)
    assert results, "the spec folder holds at least one scenario"
    for result in results:
        assert result.passed, result.to_dict()
