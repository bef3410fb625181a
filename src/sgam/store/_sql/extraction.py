"""The extraction path's statements, written once: extraction records, held candidates
and the job queue of one tenant. Claiming and counting jobs across tenants stays with
each backend (PostgreSQL does it through owner functions that bypass row-level security)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._records import ERROR_REDACTED, ExtractionRow, HeldRow, JobRow
from .._rows import EXTRACTION_COLUMNS, HELD_COLUMNS, JOB_COLUMNS
from .counters import draw_numbers
from .ledger import Scoped


def _held(row: tuple[Any, ...]) -> HeldRow:
    values = list(row)
    values[10] = bool(values[10])
    return HeldRow(*values)


def _optional(column: str, value: object) -> tuple[str, tuple[object, ...]]:
    """``AND column = ?`` with its value, or nothing when the value is None."""
    return (f"AND {column} = ?", (value,)) if value is not None else ("", ())


class ExtractionReads(Scoped):
    """Reads the reader and the write unit of work share."""

    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        where, params = _optional("episode_id", episode_id)
        rows = self._db.rows(
            f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? {where} ORDER BY seq DESC LIMIT ?",
            (self.tenant, *params, limit),
        )
        return [ExtractionRow(*row) for row in rows]

    def extraction(self, seq: int) -> ExtractionRow | None:
        row = self._db.row(f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? AND seq = ?",
                           (self.tenant, seq))
        return ExtractionRow(*row) if row else None

    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]:
        where, params = _optional("status", status)
        rows = self._db.rows(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? {where} ORDER BY seq LIMIT ?",
            (self.tenant, *params, limit),
        )
        return [_held(row) for row in rows]

    def held(self, seq: int) -> HeldRow | None:
        row = self._db.row(f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? AND seq = ?",
                           (self.tenant, seq))
        return _held(row) if row else None

    def job(self, episode_id: str) -> JobRow | None:
        row = self._db.row(f"SELECT {JOB_COLUMNS} FROM extraction_jobs WHERE tenant = ? AND episode_id = ?",
                           (self.tenant, episode_id))
        return JobRow(*row) if row else None


class ExtractionWrites(ExtractionReads):
    """Changes to the extraction tables inside one unit of work."""

    def next_extraction_attempt(self, episode_id: str) -> int:
        row = self._db.row("SELECT coalesce(max(attempt), 0) FROM extractions WHERE tenant = ? AND episode_id = ?",
                           (self.tenant, episode_id))
        assert row is not None
        return int(row[0]) + 1

    def insert_extraction(self, row: ExtractionRow) -> int:
        [seq] = draw_numbers(self._db, self.tenant, "extractions", 1)
        self._db.run(
            "INSERT INTO extractions (seq, tenant, episode_id, attempt, recorded_at, status, error, model, "
            "raw_reply, prompt_tokens, completion_tokens, latency_ms, decisions) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (seq, self.tenant, row.episode_id, row.attempt, self._db.moment(row.recorded_at), row.status, row.error,
             row.model, row.raw_reply, row.prompt_tokens, row.completion_tokens, row.latency_ms, row.decisions),
        )
        return seq

    def hold_candidate(self, row: HeldRow) -> int:
        """The held candidate's id: the one already held for the same statement, else a new one."""
        valid_from = self._db.moment(row.valid_from)
        held = (self.tenant, row.hold, row.episode_id, row.subject, row.attribute, row.value, valid_from)
        find = ("SELECT seq FROM held_candidates WHERE tenant = ? AND hold = ? AND episode_id = ? "
                "AND subject = ? AND attribute = ? AND value = ? AND valid_from = ?")
        found = self._db.row(find, held)
        if found is not None:
            return int(found[0])
        [seq] = draw_numbers(self._db, self.tenant, "held_candidates", 1)
        added = self._db.count(
            "INSERT INTO held_candidates (seq, tenant, episode_id, hold, status, subject, attribute, change, "
            "value, valid_from, confidence, stated, evidence, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (seq, self.tenant, row.episode_id, row.hold, row.status, row.subject, row.attribute, row.change,
             row.value, valid_from, row.confidence, bool(row.stated), row.evidence,
             self._db.moment(row.created_at)),
        )
        if added:
            return seq
        found = self._db.row(find, held)  # held meanwhile by a unit of work that committed first
        assert found is not None
        return int(found[0])

    def held_like(self, hold: str, subject: str, attribute: str, value: str) -> list[HeldRow]:
        rows = self._db.rows(
            f"SELECT {HELD_COLUMNS} FROM held_candidates WHERE tenant = ? AND subject = ? "
            "AND attribute = ? AND value = ? AND status = 'open' AND hold = ? ORDER BY seq",
            (self.tenant, subject, attribute, value, hold),
        )
        return [_held(row) for row in rows]

    def resolve_held(self, seqs: list[int], status: str, resolved_at: int) -> None:
        at = self._db.moment(resolved_at)
        self._db.run_many("UPDATE held_candidates SET status = ?, resolved_at = ? WHERE tenant = ? AND seq = ?",
                          [(status, at, self.tenant, seq) for seq in seqs])

    def enqueue_job(self, episode_id: str, enqueued_at: int) -> None:
        self._db.run(
            "INSERT INTO extraction_jobs (tenant, episode_id, status, enqueued_at) "
            "VALUES (?, ?, 'queued', ?) ON CONFLICT (tenant, episode_id) DO NOTHING",
            (self.tenant, episode_id, self._db.moment(enqueued_at)),
        )

    def finish_job(self, episode_id: str, owner: str, status: str, error: str | None) -> bool:
        return self._db.count(
            "UPDATE extraction_jobs SET status = ?, last_error = ?, lease_owner = NULL, lease_expires = NULL "
            "WHERE tenant = ? AND episode_id = ? AND lease_owner = ?",
            (status, error, self.tenant, episode_id, owner),
        ) == 1

    def delete_extraction_records(self, episode_id: str) -> int:
        return sum(
            self._db.count(f"DELETE FROM {table} WHERE tenant = ? AND episode_id = ?", (self.tenant, episode_id))
            for table in ("extractions", "held_candidates", "extraction_jobs")
        )

    def delete_held_of_subject(self, subject: str) -> int:
        return self._db.count("DELETE FROM held_candidates WHERE tenant = ? AND subject = ?", (self.tenant, subject))

    def extractions_mentioning(self, needles: Sequence[str]) -> list[ExtractionRow]:
        find = self._db.find
        found: dict[int, ExtractionRow] = {}
        for needle in needles:
            for row in self._db.rows(
                f"SELECT {EXTRACTION_COLUMNS} FROM extractions WHERE tenant = ? "
                f"AND ({find}(decisions, ?) > 0 OR {find}(coalesce(raw_reply, ''), ?) > 0) ORDER BY seq",
                (self.tenant, needle, needle),
            ):
                extraction = ExtractionRow(*row)
                found[extraction.seq] = extraction
        return [found[seq] for seq in sorted(found)]

    def redact_extraction(self, seq: int, raw_reply: str | None, decisions: str) -> None:
        self._db.run(
            "UPDATE extractions SET raw_reply = ?, decisions = ?, "
            "error = CASE WHEN ? AND error IS NOT NULL THEN ? ELSE error END WHERE tenant = ? AND seq = ?",
            (raw_reply, decisions, raw_reply is None, ERROR_REDACTED, self.tenant, seq),
        )
