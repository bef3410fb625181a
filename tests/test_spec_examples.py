"""The replay format's own examples must pass unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam.cli.replay import run_files

SPEC_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"


@pytest.mark.skipif(not SPEC_EXAMPLES.is_dir(), reason="the shared spec folder is not present")
def test_spec_examples_pass() -> None:
    results = run_files([SPEC_EXAMPLES], None)
    assert results, "the spec folder holds at least one scenario"
    for result in results:
        assert result.passed, result.to_dict()
