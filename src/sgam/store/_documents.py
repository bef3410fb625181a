"""What a backend provides for document memory: rows, and the ``DocumentStore`` a read or
a unit of work hands out (``documents()``), bound to its tenant and transaction, so a
document call reads the same snapshot as the ledger calls beside it; ``lock*`` methods
also lock the rows they return until the unit of work ends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt


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


class DocumentStore(Protocol):
    # reads
    def live(self, path: str) -> DocumentRow | None: ...
    def live_under(self, directory: str) -> list[DocumentRow]:
        """Live documents strictly below ``directory``, by path (content included)."""
        ...
    def live_paths(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` are live documents."""
        ...
    def has_under(self, directory: str) -> bool: ...
    def last_deleted(self, path: str) -> DocumentRow | None:
        """The most recently deleted document whose last path was ``path``."""
        ...
    def ever_at(self, path: str) -> list[int]:
        """Every document (live or deleted) that had ``path`` in any revision."""
        ...
    def revisions(self, doc_id: int) -> list[RevisionRow]: ...
    def revision(self, doc_id: int, revision: int) -> RevisionRow | None: ...
    def all_live(self) -> list[DocumentRow]: ...

    # writes (inside ``run_write``)
    def begin(self) -> None:
        """Serialise this unit of work with the tenant's other document writes."""
        ...
    def lock(self, path: str) -> DocumentRow | None: ...
    def lock_under(self, directory: str) -> list[DocumentRow]: ...
    def insert(self, row: DocumentRow) -> int:
        """Store a new document (``row.doc_id`` is ignored); its id."""
        ...
    def update(self, row: DocumentRow) -> None: ...
    def add_revision(self, row: RevisionRow) -> None: ...
    def replace_chunks(self, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        """Index the document's current revision (no chunks when it is not live)."""
        ...
    def move_under(self, old: str, new: str, moved_at: int, author: str | None,
                   episode: str | None, call: str | None) -> None:
        """Move every live document below ``old`` to below ``new`` (which holds none), each
        as a new ``rename`` revision, in statements whose number does not grow with them."""
        ...
    def erase(self, doc_ids: Sequence[int]) -> int:
        """Delete documents with every revision, chunk and vector; how many revisions went."""
        ...

    # lifecycle (inside ``run_write``, after ``begin``)
    def document(self, doc_id: int) -> DocumentRow | None: ...
    def due_documents(self, now: int) -> list[tuple[int, int]]:
        """(document, cutoff) for each document of a class with a ttl whose oldest kept
        revision is past its deadline at ``now``: revisions recorded at or before the
        cutoff (``now`` - ttl) are due."""
        ...
    def expire_revisions(self, doc_id: int, cutoff: int) -> int:
        """Delete the document's revisions recorded at or before ``cutoff``, and the
        document with its chunks and vectors when none is left; how many revisions went."""
        ...
    def revisions_naming(self, episode_ids: Sequence[str]) -> list[tuple[int, int]]:
        """(document, first revision) of documents with a revision naming any of the episodes."""
        ...
    def drop_revisions_from(self, doc_id: int, revision: int) -> int:
        """Delete revisions ``revision`` and later of the document; how many went."""
        ...

    # search
    def keyword_chunks(self, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]: ...
    def chunks_without_vectors(self, model: str, limit: int) -> list[ChunkRow]: ...
    def put_vectors(
        self, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None: ...
    def vector_chunks(
        self, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]: ...
