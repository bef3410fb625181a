"""What ``recall`` returns: typed items, the rendered context and its token count."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Citation:
    """Where an item comes from: the episode, when it happened, who said it; for a
    document passage, its path, revision and 1-based inclusive line range."""

    episode_id: str | None
    at: datetime | None
    speaker: str | None
    path: str | None = None
    revision: int | None = None
    lines: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class RecallItem:
    """A fact from the ledger (``kind='fact'``), an episode found as evidence, or a
    passage of a document (``kind='document'``)."""

    kind: Literal["fact", "evidence", "document"]
    text: str
    citation: Citation
    score: float
    subject: str | None = None
    attribute: str | None = None
    value: Any = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded: bool = False
    session: str | None = None
    tokens: int = 0
    subject_name: str | None = None
    """The subject's display name (its first spelling), when it differs from the id."""


@dataclass(frozen=True, slots=True)
class RecallResult:
    """The packed context: ``text`` is what a model sees, ``tokens`` its estimated size."""

    question: str
    items: list[RecallItem]
    text: str
    tokens: int
    budget: int
    dropped: int
