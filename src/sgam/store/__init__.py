"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._backend import Backend
from ._documents import Chunk, ChunkRow, DocumentRow, DocumentStore, RevisionRow
from ._protocol import (
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    JobRow,
    QueryFilter,
    Reader,
    WriteTransaction,
)
from ._search import SearchFilter, SearchIndex, StoredEpisode, fact_text
from ._url import open_backend, temporary_store

__all__ = [
    "Backend",
    "Chunk",
    "ChunkRow",
    "DocumentRow",
    "DocumentStore",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "JobRow",
    "QueryFilter",
    "Reader",
    "RevisionRow",
    "SearchFilter",
    "SearchIndex",
    "StoredEpisode",
    "WriteTransaction",
    "fact_text",
    "open_backend",
    "temporary_store",
]
