"""The replay format's own examples must pass unchanged, on every backend.

The examples live in the shared spec folder beside the checkout; CI always has it, so a
missing folder is a failure, never a skip."""

from __future__ import annotations

from pathlib import Path

from sgam.cli.replay import run_files

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"


def test_spec_examples_pass(replay_db: str | None) -> None:
    assert SPEC_EXAMPLES.is_dir(), f"the spec examples are missing: {SPEC_EXAMPLES}"
    results = run_files([SPEC_EXAMPLES], replay_db)
    assert results, "the spec folder holds at least one scenario"
    for result in results:
        assert result.passed, result.to_dict()

