"""A graph killed during its third super-step under each durability mode, then resumed:
what each mode loses, and the action ledger keeping the external call to exactly once
in every mode (the table in docs/checkpoints.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import Store

SCRIPT = Path(__file__).with_name("durability_graph.py")


def _run(url: str, durability: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), url, durability, str(folder)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_killed_in_the_third_step_then_resumed(store: Store, tmp_path: Path, durability: str) -> None:
    crashed = _run(store.url, durability, tmp_path)
    assert crashed.returncode == 9, crashed.stderr
    resumed = _run(store.url, durability, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "drafted,published,notified,done"
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 1  # exactly once, in every mode
    nodes = (tmp_path / "nodes.log").read_text().split()
    assert nodes[:3] == ["draft", "publish", "notify"]
    rerun = nodes[3:]
    if durability == "sync":      # every finished step was saved before the next began
        assert rerun == ["notify", "done"]
    elif durability == "async":   # saved in the background while later steps run: the steps
        # whose saves had not landed are redone (on a loaded machine, even the first one's)
        assert rerun in (["notify", "done"], ["publish", "notify", "done"], ["draft", "publish", "notify", "done"])
    else:                         # saved only when the run exits: the run starts over
        assert rerun == ["draft", "publish", "notify", "done"]
