"""SQLite's own part of the extraction path: leasing and counting queued jobs of every
tenant (one worker drains one store). The tenant-scoped statements are portable
(``store/_sql/extraction.py``)."""

from __future__ import annotations

import sqlite3

from .._records import JobRow
from .._rows import JOB_COLUMNS


def claim_jobs(
    conn: sqlite3.Connection, owner: str, now: int, lease_until: int, limit: int, tenant: str | None
) -> list[JobRow]:
    """Lease ready jobs in one statement (the caller holds the write lock)."""
    scope, params = ("AND tenant = ?", (tenant,)) if tenant is not None else ("", ())
    rows = conn.execute(
        "UPDATE extraction_jobs SET lease_owner = ?, lease_expires = ?, attempts = attempts + 1 "
        "WHERE seq IN (SELECT seq FROM extraction_jobs INDEXED BY extraction_jobs_ready "
        f"WHERE status = 'queued' AND (lease_expires IS NULL OR lease_expires <= ?) {scope} "
        f"ORDER BY seq LIMIT ?) RETURNING {JOB_COLUMNS}",
        (owner, lease_until, now, *params, limit),
    ).fetchall()
    return sorted((JobRow(*row) for row in rows), key=lambda job: job.seq)


def count_jobs(conn: sqlite3.Connection, now: int, tenant: str | None) -> int:
    scope, params = ("AND tenant = ?", (tenant,)) if tenant is not None else ("", ())
    row = conn.execute(
        "SELECT count(*) FROM extraction_jobs WHERE status = 'queued' "
        f"AND (lease_expires IS NULL OR lease_expires <= ?) {scope}",
        (now, *params),
    ).fetchone()
    return int(row[0])
