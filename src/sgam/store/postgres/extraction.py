"""PostgreSQL's own part of the extraction path: leasing and counting queued jobs of every
tenant through two SECURITY DEFINER functions that can only lease and count jobs
(the baseline). The tenant-scoped statements are portable (``store/_sql/extraction.py``)
and run under the tenant's RLS policy."""

from __future__ import annotations

from .._records import JobRow
from .adapters import Micros
from .session import Cursor


def claim_jobs(cur: Cursor, owner: str, now: int, lease_until: int, limit: int, tenant: str | None) -> list[JobRow]:
    """Lease ready jobs of every tenant (or one) through the owner's claim function;
    ``SKIP LOCKED`` lets several workers claim at once without waiting on each other."""
    rows = cur.execute(
        "SELECT tenant, episode_id, enqueued_at, attempts, lease_expires, seq "
        "FROM sgam_claim_jobs(%s, %s, %s, %s, %s)",
        (owner, Micros(now), Micros(lease_until), limit, tenant),
    ).fetchall()
    jobs = (JobRow(tenant, episode_id, "queued", enqueued, attempts, owner, expires, None, seq)
            for tenant, episode_id, enqueued, attempts, expires, seq in rows)
    return sorted(jobs, key=lambda job: job.seq)


def count_jobs(cur: Cursor, now: int, tenant: str | None) -> int:
    row = cur.execute("SELECT sgam_count_jobs(%s, %s)", (Micros(now), tenant)).fetchone()
    assert row is not None
    return int(row[0])


