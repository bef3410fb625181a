"""Subject locks: a unit of work that meets a held lock out of order re-runs holding all."""

from __future__ import annotations

import threading

from tests.conftest import PostgresUrls

from sgam.store.postgres import PostgresBackend
from sgam.store.postgres.locks import LockOrderError
from sgam.store.postgres.write import PostgresWrite


def test_out_of_order_lock_reruns_the_work_with_every_lock(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    holding, release = threading.Event(), threading.Event()

    def hold_b(txn: PostgresWrite) -> None:
        txn.last_recorded_at("b", "x")
        holding.set()
        release.wait()

    holder = threading.Thread(target=backend.run_write, args=("acme", hold_b))
    holder.start()
    holding.wait()
    attempts: list[int] = []

    def a_then_b(txn: PostgresWrite) -> str:
        attempts.append(1)
        txn.last_recorded_at("a", "x")
        try:
            txn.last_recorded_at("b", "x")
        except LockOrderError:
            release.set()  # the re-run will wait for b up front: let the holder finish
            raise
        return "done"

    try:
        assert backend.run_write("acme", a_then_b) == "done"
    finally:
        release.set()
        holder.join()
        backend.close()
    assert len(attempts) == 2
