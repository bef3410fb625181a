"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._protocol import (
    Backend,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    JobRow,
    QueryFilter,
    Reader,
    WriteTransaction,
)
from ._url import open_backend, temporary_store

__all__ = [
    "Backend",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "JobRow",
    "QueryFilter",
    "Reader",
    "WriteTransaction",
    "open_backend",
    "temporary_store",
]
