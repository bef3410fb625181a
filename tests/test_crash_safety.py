"""A writer killed with SIGKILL at random points loses nothing it acknowledged, and the
ledger's invariants hold after every crash."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

from tests.ledger_checks import check_ledger, crash_worker, prepare, read_ack_file

KILLS = 15


def _wait_ready(path: Path, process: multiprocessing.process.BaseProcess) -> None:
    while process.is_alive() and not (path.exists() and path.read_text(encoding="utf-8").startswith("ready")):
        time.sleep(0.01)


def test_sigkill_loses_nothing_acknowledged(store_url: str, tmp_path: Path) -> None:
    prepare(store_url)
    context = multiprocessing.get_context("spawn")
    rng = random.Random(7)
    acknowledged: list[tuple[int, str]] = []
    erased: set[str] = set()
    for run in range(KILLS):
        ack_path = tmp_path / f"ack-{run}.txt"
        process = context.Process(target=crash_worker, args=(store_url, f"r{run}", str(ack_path), run))
        process.start()
        _wait_ready(ack_path, process)
        time.sleep(rng.uniform(0.0, 0.25))  # where the kill lands, not an assertion
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
        process.join()
        ids, erased_now = read_ack_file(ack_path)
        acknowledged += ids
        erased |= erased_now
        check_ledger(store_url, acknowledged, erased, set(), erasures_finished=False)
    assert acknowledged, "the writer acknowledged operations before being killed"
