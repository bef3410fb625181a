"""The extraction path: its records, held candidates and the queue of jobs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._records import (
    ExtractionRow,
    HeldRow,
    JobRow,
)
from .scope import Scope


class ExtractionReads(Scope, Protocol):
    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        """Extraction records, newest first, of one episode or of the whole tenant."""
        ...
    def extraction(self, seq: int) -> ExtractionRow | None: ...
    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]: ...
    def held(self, seq: int) -> HeldRow | None: ...
    def job(self, episode_id: str) -> JobRow | None: ...


class ExtractionWrites(Scope, Protocol):
    def next_extraction_attempt(self, episode_id: str) -> int: ...
    def insert_extraction(self, row: ExtractionRow) -> int:
        """Store an extraction record (unique per tenant, episode and attempt); its seq."""
        ...
    def hold_candidate(self, row: HeldRow) -> int:
        """Insert a held candidate unless the same one (hold, episode, key, value,
        valid_from) is already held; return its seq either way."""
        ...
    def held(self, seq: int) -> HeldRow | None: ...
    def held_like(self, hold: str, subject: str, attribute: str, value: str) -> list[HeldRow]:
        """Open held candidates of ``hold`` with this key and value (recurrence counting)."""
        ...
    def resolve_held(self, seqs: list[int], status: str, resolved_at: int) -> None: ...
    def enqueue_job(self, episode_id: str, enqueued_at: int) -> None:
        """Queue the episode's extraction; an episode already queued or done stays as is."""
        ...
    def finish_job(self, episode_id: str, owner: str, status: str, error: str | None) -> bool:
        """Set the status of a job leased by ``owner`` and drop the lease ('queued' hands
        it back for a retry); False if ``owner`` no longer holds the lease."""
        ...
    def delete_extraction_records(self, episode_id: str) -> int:
        """Erasure: remove extractions, held candidates and the job of the episode."""
        ...
    def delete_held_of_subject(self, subject: str) -> int:
        """Erasure of a subject: its held candidates must not be confirmed back."""
        ...
    def extractions_mentioning(self, needles: Sequence[str]) -> list[ExtractionRow]:
        """Erasure of a subject: the tenant's extraction records whose raw reply or
        decisions contain any of ``needles`` (a superset; the caller decides)."""
        ...
    def redact_extraction(self, seq: int, raw_reply: str | None, decisions: str) -> None:
        """Erasure of a subject: replace an extraction record's raw reply and decisions."""
        ...
