"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._protocol import (
    AuditRow,
    Backend,
    ClassHoldings,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    JobRow,
    QueryFilter,
    Reader,
    RetentionRow,
    WriteTransaction,
)
from ._url import open_backend, temporary_store

__all__ = [
    "AuditRow",
    "Backend",
    "ClassHoldings",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "JobRow",
    "QueryFilter",
    "Reader",
    "RetentionRow",
    "WriteTransaction",
    "open_backend",
    "temporary_store",
]
