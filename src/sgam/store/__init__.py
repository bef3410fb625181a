"""Storage backends. Each owns its SQL; everything above talks to ``Backend``."""

from __future__ import annotations

from ._backend import Backend
from ._documents import Chunk, ChunkRow, DocumentRow, DocumentStore, RevisionRow
from ._protocol import (
    ActionRow,
    AuditRow,
    ClassHoldings,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    ItemRow,
    JobRow,
    QueryFilter,
    Reader,
    ResidueHit,
    RetentionRow,
    WriteTransaction,
    apply_plan,
)
from ._registry import FAMILIES, BackendFamily, migrate_store, open_backend, temporary_store
from ._search import SearchFilter, SearchIndex, StoredEpisode, fact_text

__all__ = [
    "ActionRow",
    "AuditRow",
    "Backend",
    "BackendFamily",
    "Chunk",
    "ChunkRow",
    "ClassHoldings",
    "DocumentRow",
    "DocumentStore",
    "FAMILIES",
    "EpisodeRow",
    "ExtractionRow",
    "HeldRow",
    "ItemRow",
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
    "apply_plan",
    "fact_text",
    "migrate_store",
    "open_backend",
    "temporary_store",
]
