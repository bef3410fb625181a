"""PostgreSQL tables of the extraction path: extraction records, held candidates, job queue.

Kept apart from the ledger's SQL, as in the SQLite backend; ``PostgresWrite`` and
``PostgresReader`` mix these in. Every statement runs under the tenant's RLS policy
except the job claim and count, which serve every tenant through two SECURITY DEFINER
functions that can only lease and count jobs (migration 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from .._protocol import ERROR_REDACTED, ExtractionRow, HeldRow, JobRow
from .._rows import EXTRACTION_COLUMNS, HELD_COLUMNS, JOB_COLUMNS
from .adapters import Micros

Cursor = psycopg.Cursor[tuple[Any, ...]]


class ExtractionReads:
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    _cur: Cursor
    tenant: str

    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        where, params = ("AND episode_id = %s", (episode_id,)) if episode_id is not None else ("", ())
        rows = self._cur.execute(
            f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = %s {where} ORDER BY seq DESC LIMIT %s",
            (self.tenant, *params, limit),
        ).fetchall()
        return [ExtractionRow(*row) for row in rows]

    def extraction(self, seq: int) -> ExtractionRow | None:
        row = self._cur.execute(
            f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = %s AND seq = %s", (self.tenant, seq)
        ).fetchone()
        return ExtractionRow(*row) if row else None

    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]:
        where, params = ("AND status = %s", (status,)) if status is not None else ("", ())
        rows = self._cur.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = %s {where} ORDER BY seq LIMIT %s",
            (self.tenant, *params, limit),
        ).fetchall()
        return [HeldRow(*row) for row in rows]

    def held(self, seq: int) -> HeldRow | None:
        row = self._cur.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = %s AND seq = %s", (self.tenant, seq)
        ).fetchone()
        return HeldRow(*row) if row else None

    def job(self, episode_id: str) -> JobRow | None:
        row = self._cur.execute(
            f"SELECT {JOB_COLUMNS} FROM extraction_jobs WHERE tenant = %s AND episode_id = %s",
            (self.tenant, episode_id),
        ).fetchone()
        return JobRow(*row) if row else None


class ExtractionWrites(ExtractionReads):
    """Changes to the extraction tables inside one unit of work."""

    def next_extraction_attempt(self, episode_id: str) -> int:
        row = self._cur.execute(
            "SELECT coalesce(max(attempt), 0) FROM extractions WHERE tenant = %s AND episode_id = %s",
            (self.tenant, episode_id),
        ).fetchone()
        assert row is not None
        return int(row[0]) + 1

    def insert_extraction(self, row: ExtractionRow) -> int:
        found = self._cur.execute(
            "INSERT INTO extractions (tenant, episode_id, attempt, recorded_at, status, error, model, "
            "raw_reply, prompt_tokens, completion_tokens, latency_ms, decisions) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq",
            (self.tenant, row.episode_id, row.attempt, Micros(row.recorded_at), row.status, row.error,
             row.model, row.raw_reply, row.prompt_tokens, row.completion_tokens, row.latency_ms,
             row.decisions),
        ).fetchone()
        assert found is not None
        return int(found[0])

    def hold_candidate(self, row: HeldRow) -> int:
        self._cur.execute(
            "INSERT INTO held_candidates (tenant, episode_id, hold, status, subject, attribute, change, "
            "value, valid_from, confidence, stated, evidence, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (self.tenant, row.episode_id, row.hold, row.status, row.subject, row.attribute, row.change,
             row.value, Micros(row.valid_from), row.confidence, bool(row.stated), row.evidence,
             Micros(row.created_at)),
        )
        found = self._cur.execute(
            "SELECT seq FROM held_candidates WHERE tenant = %s AND hold = %s AND episode_id = %s "
            "AND subject = %s AND attribute = %s AND value = %s AND valid_from = %s",
            (self.tenant, row.hold, row.episode_id, row.subject, row.attribute, row.value,
             Micros(row.valid_from)),
        ).fetchone()
        assert found is not None
        return int(found[0])

    def held_like(self, hold: str, subject: str, attribute: str, value: str) -> list[HeldRow]:
        rows = self._cur.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = %s AND subject = %s "
            "AND attribute = %s AND value = %s AND status = 'open' AND hold = %s ORDER BY seq",
            (self.tenant, subject, attribute, value, hold),
        ).fetchall()
        return [HeldRow(*row) for row in rows]

    def resolve_held(self, seqs: list[int], status: str, resolved_at: int) -> None:
        self._cur.execute(
            "UPDATE held_candidates SET status = %s, resolved_at = %s "
            "WHERE tenant = %s AND seq = ANY(%s::bigint[])",
            (status, Micros(resolved_at), self.tenant, seqs),
        )

    def enqueue_job(self, episode_id: str, enqueued_at: int) -> None:
        self._cur.execute(
            "INSERT INTO extraction_jobs (tenant, episode_id, status, enqueued_at) "
            "VALUES (%s, %s, 'queued', %s) ON CONFLICT (tenant, episode_id) DO NOTHING",
            (self.tenant, episode_id, Micros(enqueued_at)),
        )

    def finish_job(self, episode_id: str, owner: str, status: str, error: str | None) -> bool:
        rows = self._cur.execute(
            "UPDATE extraction_jobs SET status = %s, last_error = %s, lease_owner = NULL, "
            "lease_expires = NULL WHERE tenant = %s AND episode_id = %s AND lease_owner = %s RETURNING 1",
            (status, error, self.tenant, episode_id, owner),
        ).fetchall()
        return len(rows) == 1

    def delete_extraction_records(self, episode_id: str) -> int:
        removed = 0
        for table in ("extractions", "held_candidates", "extraction_jobs"):
            removed += len(self._cur.execute(
                f"DELETE FROM {table} WHERE tenant = %s AND episode_id = %s RETURNING 1",
                (self.tenant, episode_id),
            ).fetchall())
        return removed

    def delete_held_of_subject(self, subject: str) -> int:
        return len(self._cur.execute(
            "DELETE FROM held_candidates WHERE tenant = %s AND subject = %s RETURNING 1", (self.tenant, subject)
        ).fetchall())

    def extractions_mentioning(self, needles: Sequence[str]) -> list[ExtractionRow]:
        found: dict[int, ExtractionRow] = {}
        for needle in needles:
            for row in self._cur.execute(
                f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = %s "
                "AND (strpos(decisions, %s) > 0 OR strpos(coalesce(raw_reply, ''), %s) > 0) ORDER BY seq",
                (self.tenant, needle, needle),
            ).fetchall():
                extraction = ExtractionRow(*row)
                found[extraction.seq] = extraction
        return [found[seq] for seq in sorted(found)]

    def redact_extraction(self, seq: int, raw_reply: str | None, decisions: str) -> None:
        self._cur.execute(
            "UPDATE extractions SET raw_reply = %s, decisions = %s, "
            "error = CASE WHEN %s AND error IS NOT NULL THEN %s ELSE error END WHERE tenant = %s AND seq = %s",
            (raw_reply, decisions, raw_reply is None, ERROR_REDACTED, self.tenant, seq),
        )


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


