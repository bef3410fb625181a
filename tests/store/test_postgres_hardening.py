"""The functions the application role may call run as the owner (SECURITY DEFINER), so
what a caller may ask of them is bounded by the database, not by sgam's own code."""

from __future__ import annotations

import time

import psycopg
from tests.conftest import TEST_VECTOR_DIMENSIONS, PostgresUrls

from sgam.store.postgres import PostgresBackend

HOUR = 3_600_000_000
YEAR = 365 * 24 * HOUR


def _now() -> int:
    return int(time.time() * 1_000_000)


def _queue(backend: PostgresBackend, count: int, tenant: str = "acme") -> None:
    def enqueue(txn: object) -> None:
        for n in range(count):
            txn.enqueue_job(f"e{n}", _now())  # type: ignore[attr-defined]

    backend.run_write(tenant, enqueue)


def test_a_claimed_lease_is_capped_at_an_hour(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    try:
        _queue(backend, 1)
        now = _now()
        (job,) = backend.claim_jobs("greedy", now, now + 20 * YEAR, 1, None)
        assert job.lease_expires is not None and job.lease_expires <= now + HOUR
    finally:
        backend.close()


def test_a_caller_clock_far_ahead_cannot_take_live_leases(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    try:
        _queue(backend, 1)
        now = _now()
        assert backend.claim_jobs("fair", now, now + HOUR // 2, 1, None)
        assert backend.claim_jobs("thief", now + 10 * YEAR, now + 11 * YEAR, 1, None) == []
    finally:
        backend.close()


def test_a_claim_takes_at_most_a_hundred_jobs_and_never_a_negative_number(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    try:
        _queue(backend, 150)
        now = _now()
        assert backend.claim_jobs("w", now, now + 60_000_000, -3, None) == []
        assert len(backend.claim_jobs("w", now, now + 60_000_000, 10**9, None)) == 100
    finally:
        backend.close()


def test_a_claim_returns_only_what_a_worker_needs(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    try:
        _queue(backend, 1, tenant="globex")
        backend.run_write("globex", lambda txn: txn._pipe.cursor().execute(  # type: ignore[attr-defined]
            "UPDATE extraction_jobs SET last_error = 'secret of globex', lease_owner = 'other'"))
    finally:
        backend.close()
    with psycopg.connect(postgres.app, autocommit=True) as conn:
        cur = conn.execute("SELECT * FROM sgam_claim_jobs('w', now(), now() + interval '1 minute', 5, NULL)")
        assert [column.name for column in cur.description or ()] == [
            "tenant", "episode_id", "enqueued_at", "attempts", "lease_expires", "seq"]
        assert "secret" not in repr(cur.fetchall())


def test_vector_indexes_only_for_the_dimensions_the_owner_allowed(postgres: PostgresUrls) -> None:
    allowed = TEST_VECTOR_DIMENSIONS[-1]
    with psycopg.connect(postgres.app, autocommit=True) as conn:
        for dims in (7, 1999, allowed):
            conn.execute("SELECT sgam_vector_index(%s::integer)", (dims,))
        names = {row[0] for row in conn.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%hnsw%'")}
    assert f"episode_vectors_hnsw_{allowed}" in names
    assert not {"episode_vectors_hnsw_7", "episode_vectors_hnsw_1999"} & names
