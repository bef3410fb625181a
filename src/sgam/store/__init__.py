"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._protocol import (
    ActionRow,
    Backend,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    ItemRow,
    JobRow,
    QueryFilter,
    Reader,
    WriteTransaction,
)
from ._url import open_backend, temporary_store

__all__ = [
    "ActionRow",
    "Backend",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "ItemRow",
    "JobRow",
    "QueryFilter",
    "Reader",
    "WriteTransaction",
    "open_backend",
    "temporary_store",
]
