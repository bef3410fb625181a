"""Several processes write, retract, correct and erase the same few keys at once; then
nothing acknowledged is lost, nothing is duplicated, no two current versions of a key
overlap, and every key's stored versions equal a re-derivation of its operation log."""

from __future__ import annotations

import multiprocessing

from tests.ledger_checks import WorkerLog, check_ledger, concurrent_worker, prepare

WORKERS = 4
STEPS = 60


def test_concurrent_writers_keep_the_ledger_exact(store_url: str) -> None:
    prepare(store_url)
    context = multiprocessing.get_context("spawn")
    with context.Pool(WORKERS) as pool:
        logs: list[WorkerLog] = pool.starmap(
            concurrent_worker, [(store_url, f"w{i}", STEPS, 1000 + i) for i in range(WORKERS)]
        )
    acknowledged = [item for log in logs for item in log.acknowledged]
    erased = set().union(*(log.erased_sources for log in logs))
    erased_subjects = set().union(*(log.erased_subjects for log in logs))
    stored = check_ledger(store_url, acknowledged, erased, erased_subjects, erasures_finished=True)
    assert len(acknowledged) > WORKERS * STEPS // 4
    assert stored >= len([1 for _, source in acknowledged if source not in erased])
