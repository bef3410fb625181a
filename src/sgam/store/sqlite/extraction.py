"""SQLite tables of the extraction path: extraction records, held candidates, job queue.

Kept apart from the ledger's SQL so the two jobs stay readable; ``SQLiteWrite`` and
``SQLiteReader`` mix these in. Every statement is scoped by tenant except the job claim,
which serves every tenant on purpose (one worker drains one store).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .._protocol import ERROR_REDACTED, ExtractionRow, HeldRow, JobRow
from .._rows import EXTRACTION_COLUMNS, HELD_COLUMNS, JOB_COLUMNS


def _held(row: tuple[Any, ...]) -> HeldRow:
    values = list(row)
    values[10] = bool(values[10])
    return HeldRow(*values)


class ExtractionReads:
    """Tenant-scoped reads shared by the reader and the write unit of work."""

    _conn: sqlite3.Connection
    tenant: str

    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        where, params = ("AND episode_id = ?", (episode_id,)) if episode_id is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? {where} ORDER BY seq DESC LIMIT ?",
            (self.tenant, *params, limit),
        ).fetchall()
        return [ExtractionRow(*row) for row in rows]

    def extraction(self, seq: int) -> ExtractionRow | None:
        row = self._conn.execute(
            f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? AND seq = ?", (self.tenant, seq)
        ).fetchone()
        return ExtractionRow(*row) if row else None

    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]:
        where, params = ("AND status = ?", (status,)) if status is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? {where} ORDER BY seq LIMIT ?",
            (self.tenant, *params, limit),
        ).fetchall()
        return [_held(row) for row in rows]

    def held(self, seq: int) -> HeldRow | None:
        row = self._conn.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? AND seq = ?", (self.tenant, seq)
        ).fetchone()
        return _held(row) if row else None

    def job(self, episode_id: str) -> JobRow | None:
        row = self._conn.execute(
            f"SELECT {JOB_COLUMNS} FROM extraction_jobs WHERE tenant = ? AND episode_id = ?",
            (self.tenant, episode_id),
        ).fetchone()
        return JobRow(*row) if row else None


class ExtractionWrites(ExtractionReads):
    """Changes to the extraction tables inside one ``BEGIN IMMEDIATE`` unit of work."""

    def next_extraction_attempt(self, episode_id: str) -> int:
        row = self._conn.execute(
            "SELECT coalesce(max(attempt), 0) FROM extractions WHERE tenant = ? AND episode_id = ?",
            (self.tenant, episode_id),
        ).fetchone()
        return int(row[0]) + 1

    def insert_extraction(self, row: ExtractionRow) -> int:
        cursor = self._conn.execute(
            "INSERT INTO extractions (tenant, episode_id, attempt, recorded_at, status, error, model, "
            "raw_reply, prompt_tokens, completion_tokens, latency_ms, decisions) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.tenant,
                row.episode_id,
                row.attempt,
                row.recorded_at,
                row.status,
                row.error,
                row.model,
                row.raw_reply,
                row.prompt_tokens,
                row.completion_tokens,
                row.latency_ms,
                row.decisions,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def hold_candidate(self, row: HeldRow) -> int:
        self._conn.execute(
            "INSERT INTO held_candidates (tenant, episode_id, hold, status, subject, attribute, change, "
            "value, valid_from, confidence, stated, evidence, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                self.tenant,
                row.episode_id,
                row.hold,
                row.status,
                row.subject,
                row.attribute,
                row.change,
                row.value,
                row.valid_from,
                row.confidence,
                int(row.stated),
                row.evidence,
                row.created_at,
            ),
        )
        found = self._conn.execute(
            "SELECT seq FROM held_candidates WHERE tenant = ? AND hold = ? AND episode_id = ? AND subject = ? "
            "AND attribute = ? AND value = ? AND valid_from = ?",
            (self.tenant, row.hold, row.episode_id, row.subject, row.attribute, row.value, row.valid_from),
        ).fetchone()
        return int(found[0])

    def held_like(self, hold: str, subject: str, attribute: str, value: str) -> list[HeldRow]:
        rows = self._conn.execute(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? AND subject = ? AND attribute = ? "
            "AND value = ? AND status = 'open' AND hold = ? ORDER BY seq",
            (self.tenant, subject, attribute, value, hold),
        ).fetchall()
        return [_held(row) for row in rows]

    def resolve_held(self, seqs: list[int], status: str, resolved_at: int) -> None:
        self._conn.executemany(
            "UPDATE held_candidates SET status = ?, resolved_at = ? WHERE tenant = ? AND seq = ?",
            [(status, resolved_at, self.tenant, seq) for seq in seqs],
        )

    def enqueue_job(self, episode_id: str, enqueued_at: int) -> None:
        self._conn.execute(
            "INSERT INTO extraction_jobs (tenant, episode_id, status, enqueued_at) VALUES (?, ?, 'queued', ?) "
            "ON CONFLICT (tenant, episode_id) DO NOTHING",
            (self.tenant, episode_id, enqueued_at),
        )

    def finish_job(self, episode_id: str, owner: str, status: str, error: str | None) -> bool:
        cursor = self._conn.execute(
            "UPDATE extraction_jobs SET status = ?, last_error = ?, lease_owner = NULL, lease_expires = NULL "
            "WHERE tenant = ? AND episode_id = ? AND lease_owner = ?",
            (status, error, self.tenant, episode_id, owner),
        )
        return cursor.rowcount == 1

    def delete_extraction_records(self, episode_id: str) -> int:
        removed = 0
        for table in ("extractions", "held_candidates", "extraction_jobs"):
            removed += self._conn.execute(
                f"DELETE FROM {table} WHERE tenant = ? AND episode_id = ?", (self.tenant, episode_id)
            ).rowcount
        return removed

    def delete_held_of_subject(self, subject: str) -> int:
        return self._conn.execute(
            "DELETE FROM held_candidates WHERE tenant = ? AND subject = ?", (self.tenant, subject)
        ).rowcount

    def extractions_mentioning(self, needles: Sequence[str]) -> list[ExtractionRow]:
        found: dict[int, ExtractionRow] = {}
        for needle in needles:
            for row in self._conn.execute(
                f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? "
                "AND (instr(decisions, ?) > 0 OR instr(coalesce(raw_reply, ''), ?) > 0) ORDER BY seq",
                (self.tenant, needle, needle),
            ).fetchall():
                extraction = ExtractionRow(*row)
                found[extraction.seq] = extraction
        return [found[seq] for seq in sorted(found)]

    def redact_extraction(self, seq: int, raw_reply: str | None, decisions: str) -> None:
        self._conn.execute(
            "UPDATE extractions SET raw_reply = ?, decisions = ?, "
            "error = CASE WHEN ? AND error IS NOT NULL THEN ? ELSE error END WHERE tenant = ? AND seq = ?",
            (raw_reply, decisions, raw_reply is None, ERROR_REDACTED, self.tenant, seq),
        )


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
