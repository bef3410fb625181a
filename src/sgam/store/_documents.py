"""What a backend provides for document memory: rows, and the ``DocumentStore`` whose
methods take the handle of a unit of work or a read (``Backend.run_write`` /
``Backend.read``), so each runs in that tenant's transaction; ``lock*`` methods also lock
the rows they return until it ends."""

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


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document to index: its 1-based inclusive line range and text."""

    start_line: int
    end_line: int
    text: str


class DocumentStore(Protocol):
    # reads
    def live(self, handle: object, path: str) -> DocumentRow | None: ...
    def live_under(self, handle: object, directory: str) -> list[DocumentRow]:
        """Live documents strictly below ``directory``, by path (content included)."""
        ...
    def live_paths(self, handle: object, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` are live documents."""
        ...
    def has_under(self, handle: object, directory: str) -> bool: ...
    def last_deleted(self, handle: object, path: str) -> DocumentRow | None:
        """The most recently deleted document whose last path was ``path``."""
        ...
    def ever_at(self, handle: object, path: str) -> list[int]:
        """Every document (live or deleted) that had ``path`` in any revision."""
        ...
    def revisions(self, handle: object, doc_id: int) -> list[RevisionRow]: ...
    def revision(self, handle: object, doc_id: int, revision: int) -> RevisionRow | None: ...
    def all_live(self, handle: object) -> list[DocumentRow]: ...

    # writes (inside ``run_write``)
    def begin(self, handle: object) -> None:
        """Serialise this unit of work with the tenant's other document writes."""
        ...
    def lock(self, handle: object, path: str) -> DocumentRow | None: ...
    def lock_under(self, handle: object, directory: str) -> list[DocumentRow]: ...
    def insert(self, handle: object, row: DocumentRow) -> int:
        """Store a new document (``row.doc_id`` is ignored); its id."""
        ...
    def update(self, handle: object, row: DocumentRow) -> None: ...
    def add_revision(self, handle: object, tenant: str, row: RevisionRow) -> None: ...
    def replace_chunks(self, handle: object, tenant: str, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        """Index the document's current revision (no chunks when it is not live)."""
        ...
    def move_under(self, handle: object, old: str, new: str, moved_at: int, author: str | None,
                   episode: str | None, call: str | None) -> None:
        """Move every live document below ``old`` to below ``new`` (which holds none), each
        as a new ``rename`` revision, in statements whose number does not grow with them."""
        ...
    def erase(self, handle: object, doc_ids: Sequence[int]) -> int:
        """Delete documents with every revision, chunk and vector; how many revisions went."""
        ...

    # lifecycle (inside ``run_write``, after ``begin``)
    def document(self, handle: object, doc_id: int) -> DocumentRow | None: ...
    def due_documents(self, handle: object, now: int) -> list[tuple[int, int]]:
        """(document, cutoff) for each document of a class with a ttl whose oldest kept
        revision is past its deadline at ``now``: revisions recorded at or before the
        cutoff (``now`` - ttl) are due."""
        ...
    def expire_revisions(self, handle: object, doc_id: int, cutoff: int) -> int:
        """Delete the document's revisions recorded at or before ``cutoff``, and the
        document with its chunks and vectors when none is left; how many revisions went."""
        ...
    def revisions_naming(self, handle: object, episode_ids: Sequence[str]) -> list[tuple[int, int]]:
        """(document, first revision) of documents with a revision naming any of the episodes."""
        ...
    def drop_revisions_from(self, handle: object, doc_id: int, revision: int) -> int:
        """Delete revisions ``revision`` and later of the document; how many went."""
        ...

    # search
    def keyword_chunks(self, handle: object, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]: ...
    def chunks_without_vectors(self, handle: object, model: str, limit: int) -> list[ChunkRow]: ...
    def put_vectors(
        self, handle: object, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None: ...
    def vector_chunks(
        self, handle: object, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]: ...
