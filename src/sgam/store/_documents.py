"""What a backend provides for document memory: rows, and the ``DocumentStore`` a read or
a unit of work hands out (``documents()``, ``contract/documents.py``), bound to its tenant and transaction, so a
document call reads the same snapshot as the ledger calls beside it; ``lock*`` methods
also lock the rows they return until the unit of work ends."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class DocumentRow:
    doc_id: int
    path: str
    live: bool
    revision: int
    content: str | None
    size: int
    retention: str
    source: str | None
    reviewed_at: int | None
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class RevisionRow:
    doc_id: int
    revision: int
    path: str
    op: str
    content: str | None
    author: str | None
    episode: str | None
    call_id: str | None
    recorded_at: int


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A passage of a live document's current revision, indexed for search."""

    chunk_id: int
    doc_id: int
    revision: int
    path: str
    start_line: int
    end_line: int
    text: str

    @property
    def embedded_text(self) -> str:
        """What a chunk's vector is made of: the path names what a passage is about."""
        return f"{self.path}\n{self.text}"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document to index: its 1-based inclusive line range and text."""

    start_line: int
    end_line: int
    text: str
