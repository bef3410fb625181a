"""Pruning against a running thread: a prune or a retention pass that runs while the
thread's puts commit never takes the newest checkpoint nor its pending writes.

Each put is followed by its pending write and a read of the thread's newest checkpoint,
which must be that put, with that write, while another thread prunes in a loop. The
default run is short; ``SGAM_PRUNE_STRESS_PUTS`` sets how many puts each case makes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, cast

from langgraph.checkpoint.base import empty_checkpoint

from sgam import Memory
from sgam.langgraph import SgamSaver
from sgam.lifecycle.checkpoints import settle_threads
from sgam.store import WriteTransaction
from sgam.store._sql.checkpoints import CheckpointRecords

from ..conftest import ManualClock

PUTS = int(os.environ.get("SGAM_PRUNE_STRESS_PUTS", "300"))
THREAD = {"configurable": {"thread_id": "running", "checkpoint_ns": ""}}


def _run_against(saver: SgamSaver, prune_once: Callable[[], object]) -> tuple[int, list[str]]:
    """Make ``PUTS`` puts while ``prune_once`` loops in another thread; how many prunes ran
    and what each bad read found."""
    stop = threading.Event()
    prunes = 0
    failures: list[BaseException] = []

    def prune_loop() -> None:
        nonlocal prunes
        try:
            while not stop.is_set():
                prune_once()
                prunes += 1
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)

    pruner = threading.Thread(target=prune_loop)
    bad: list[str] = []
    parent = None
    pruner.start()
    try:
        for step in range(PUTS):
            checkpoint = empty_checkpoint()
            checkpoint["channel_values"] = {"step": step}
            config = dict(THREAD["configurable"])
            if parent is not None:
                config["checkpoint_id"] = parent
            stored = saver.put({"configurable": config}, checkpoint,  # type: ignore[arg-type]
                               {"source": "loop", "step": step}, {})
            saver.put_writes(stored, [("step", step)], f"task-{step}")
            found = saver.get_tuple(THREAD)  # type: ignore[arg-type]
            if found is None:
                bad.append(f"step {step}: no checkpoint")
            elif found.checkpoint["id"] != checkpoint["id"]:
                bad.append(f"step {step}: older checkpoint {found.checkpoint['id']}")
            elif found.pending_writes != [(f"task-{step}", "step", step)]:
                bad.append(f"step {step}: pending writes {found.pending_writes}")
            parent = checkpoint["id"]
    finally:
        stop.set()
        pruner.join()
    assert not failures, failures
    return prunes, bad


def test_prune_keeps_the_newest_checkpoint_of_a_running_thread(memory: Memory) -> None:
    saver = SgamSaver(memory, tenant="acme")
    prunes, bad = _run_against(saver, lambda: saver.prune(["running"], strategy="keep_latest"))
    assert prunes > 0
    assert bad == [], f"{len(bad)} of {PUTS} reads after a put: {bad[:5]}"


def test_retention_keeps_the_newest_checkpoint_of_a_running_thread(memory: Memory, clock: ManualClock) -> None:
    """Each pass finds the thread's older checkpoints two days past a one-day class that
    keeps what a resume needs, and prunes it: what ``sgam purge`` and the worker run."""
    memory.retention("acme", "runs", "P1D", on_expiry="keep_facts")
    saver = SgamSaver(memory, tenant="acme", retention="runs")

    def retention_pass() -> None:
        clock.advance(2 * 86_400)
        memory.purge("acme")

    prunes, bad = _run_against(saver, retention_pass)
    assert prunes > 0
    assert bad == [], f"{len(bad)} of {PUTS} reads after a put: {bad[:5]}"


class _PutAfterListing:
    """A unit of work whose checkpoint records run ``put`` right after retention lists the
    tenant's threads: a put landing between the sweep's listing and its delete."""

    def __init__(self, txn: WriteTransaction, put: Callable[[CheckpointRecords], None]) -> None:
        self._txn, self._put = txn, put

    def __getattr__(self, name: str) -> Any:
        return getattr(self._txn, name)

    def checkpoints(self) -> CheckpointRecords:
        records = self._txn.checkpoints()
        listing = records.threads

        def threads(limit: int) -> list[Any]:
            found = listing(limit)
            self._put(records)
            return found

        setattr(records, "threads", threads)  # noqa: B010 - this one instance only
        return records


def test_retention_keeps_a_thread_that_got_a_checkpoint_after_the_sweep_listed_it(
        memory: Memory, clock: ManualClock) -> None:
    """Retention lists a thread as expired (``on_expiry: erase``); a put commits before the
    delete: on PostgreSQL on a connection of its own, on SQLite (whose write transaction
    shuts out every other writer) in the sweep's transaction. The thread stays whole, the
    new checkpoint with it, and nothing is reported erased; a thread nobody put to goes."""
    memory.retention("acme", "runs", "P1D")
    saver = SgamSaver(memory, tenant="acme", retention="runs")
    for thread_id in ("busy", "idle"):
        saver.put({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}, empty_checkpoint(), {}, {})
    clock.advance(2 * 86_400)
    backend, now = memory.ledger.backend, memory.ledger.now()

    def put(records: CheckpointRecords) -> None:
        old = records.checkpoint("busy", "", None)
        assert old is not None
        newer = old._replace(checkpoint_id=f"{old.checkpoint_id}-next", parent_id=old.checkpoint_id, created_at=now)
        writer = backend.checkpoint_writer("acme")
        if writer is None:
            records.put_checkpoint(newer, "runs", [])
        else:
            assert writer.put_checkpoint(newer, "runs", [])

    settled = backend.run_write("acme", lambda txn: settle_threads(
        cast(WriteTransaction, _PutAfterListing(txn, put)), now, memory.ledger.reach, "purge"))
    assert settled.erased == ["idle"]
    with backend.read("acme") as reader:
        records = reader.checkpoints()
        busy = records.thread("busy")
        assert busy is not None and busy.checkpoints == 2 and busy.last_at == now
        assert records.thread("idle") is None
        newest = records.checkpoint("busy", "", None)
        assert newest is not None and newest.checkpoint_id.endswith("-next")
