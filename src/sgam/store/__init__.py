"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._backend import Backend
from ._documents import Chunk, ChunkRow, DocumentRow, DocumentStore, RevisionRow
from ._protocol import (
    AuditRow,
    ClassHoldings,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    JobRow,
    QueryFilter,
    Reader,
    ResidueHit,
    RetentionRow,
    WriteTransaction,
)
from ._search import SearchFilter, SearchIndex, StoredEpisode, fact_text
from ._url import open_backend, temporary_store

__all__ = [
    "AuditRow",
    "Backend",
    "Chunk",
    "ChunkRow",
    "ClassHoldings",
    "DocumentRow",
    "DocumentStore",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "JobRow",
    "QueryFilter",
    "Reader",
    "ResidueHit",
    "RetentionRow",
    "RevisionRow",
    "SearchFilter",
    "SearchIndex",
    "StoredEpisode",
    "WriteTransaction",
    "fact_text",
    "open_backend",
    "temporary_store",
]
