"""What the extraction path reports and keeps: decisions, extraction records, held
candidates. Plain data; the store keeps them as rows and JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from .._core.model import Episode
from .._core.time import from_micros
from .._core.values import load_value
from ..store import ExtractionRow, HeldRow


class Outcome(StrEnum):
    """What policy did with one candidate update."""

    ACCEPTED = "accepted"  # written (or retracted) through the write service
    REJECTED = "rejected"  # refused: bad evidence, bad value, a rule said no
    DROPPED = "dropped"  # no_change
    PENDING = "pending"  # sensitive attribute: waits for confirm/reject
    BUFFERED = "buffered"  # weak signal: waits for recurrence or confirmation
    PROMOTED = "promoted"  # weak signal that recurred often enough: written


@dataclass(frozen=True, slots=True)
class Decision:
    """One candidate and what happened to it, with the reason."""

    index: int
    candidate: dict[str, Any]
    outcome: Outcome
    reason: str | None = None
    effect: str | None = None
    operation_id: int | None = None
    held_id: int | None = None
    candidates: list[str] = field(default_factory=list)
    """The subjects an ambiguous name could mean (the name itself, as a new subject, too)."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Decision:
        return cls(**{**data, "outcome": Outcome(data["outcome"])})


@dataclass(frozen=True, slots=True)
class Extraction:
    """One extraction attempt of an episode: the raw reply, the cost, every decision."""

    id: int
    tenant: str
    episode_id: str
    attempt: int
    recorded_at: datetime
    status: str
    error: str | None
    model: str | None
    raw_reply: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    decisions: list[Decision] = field(default_factory=list)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for d in self.decisions if d.outcome is outcome)

    def without_subjects(self, subjects: set[str]) -> Extraction:
        """This record as a reader may see it while consent for ``subjects`` is revoked:
        their decisions left out, and the raw reply too if it names one of them."""
        if not subjects:
            return self
        kept = [d for d in self.decisions if d.candidate.get("subject") not in subjects]
        naming = self.raw_reply is not None and any(s in self.raw_reply for s in subjects)
        if len(kept) == len(self.decisions) and not naming:
            return self
        return replace(self, decisions=kept, raw_reply=None if naming else self.raw_reply)

    @classmethod
    def from_row(cls, row: ExtractionRow) -> Extraction:
        return cls(
            id=row.seq,
            tenant=row.tenant,
            episode_id=row.episode_id,
            attempt=row.attempt,
            recorded_at=from_micros(row.recorded_at),
            status=row.status,
            error=row.error,
            model=row.model,
            raw_reply=row.raw_reply,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            latency_ms=row.latency_ms,
            decisions=[Decision.from_dict(d) for d in json.loads(row.decisions)],
        )


@dataclass(frozen=True, slots=True)
class HeldCandidate:
    """A candidate held back: ``pending`` (sensitive) or ``buffered`` (weak signal)."""

    id: int
    tenant: str
    episode_id: str
    hold: str
    status: str
    subject: str
    attribute: str
    change: str
    value: Any
    valid_from: datetime
    confidence: float
    stated: bool
    evidence: str
    created_at: datetime
    resolved_at: datetime | None

    @classmethod
    def from_row(cls, row: HeldRow) -> HeldCandidate:
        return cls(
            id=row.seq,
            tenant=row.tenant,
            episode_id=row.episode_id,
            hold=row.hold,
            status=row.status,
            subject=row.subject,
            attribute=row.attribute,
            change=row.change,
            value=load_value(row.value),
            valid_from=from_micros(row.valid_from),
            confidence=row.confidence,
            stated=row.stated,
            evidence=row.evidence,
            created_at=from_micros(row.created_at),
            resolved_at=None if row.resolved_at is None else from_micros(row.resolved_at),
        )


@dataclass(frozen=True, slots=True)
class Remembered:
    """What ``Memory.remember`` did: the episode, and its extraction unless queued."""

    episode: Episode
    extraction: Extraction | None
    queued: bool
