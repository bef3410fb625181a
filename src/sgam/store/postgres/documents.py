"""PostgreSQL's own part of document memory: row locks, directory ranges by ``LIKE`` on a
``text_pattern_ops`` index, chunks under a ``tsvector`` (GIN) and vectors in pgvector
(exact cosine). The shared statements are portable (``store/_sql/documents.py``);
row-level security scopes every statement.

Document writes of a tenant serialise on one transaction-level advisory lock: a change
checks the tree (is a parent a file? is the destination free?) before it writes, and
only a lock over the tenant's whole tree makes check and write atomic across paths."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._documents import Chunk, ChunkRow, DocumentRow
from .._requests import KeywordChunks
from .._sql.documents import CHUNK, PortableDocuments
from .._sql.session import Session
from .adapters import Floats, query_vector

_WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"
_CHUNKS = "INSERT INTO document_chunks (tenant, doc_id, revision, path, start_line, end_line, text)"


def keyword_chunks_statement(tenant: str, request: KeywordChunks) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``PostgresDocuments.keyword_chunks`` (non-empty terms)."""
    return (f"SELECT {CHUNK}, ts_rank_cd({_WEIGHTS}, c.search, a.q) AS rank FROM document_chunks c, "
            "(SELECT sgam_tsquery_or(plainto_tsquery('english', term)) AS q FROM unnest(?::text[]) AS u(term)) a "
            "WHERE c.tenant = ? AND c.search @@ a.q ORDER BY rank DESC, c.chunk_id LIMIT ?",
            (list(request.terms), tenant, request.limit))


class PostgresDocuments(PortableDocuments):
    """``DocumentStore`` in one of the backend's tenant-scoped transactions; ``lock_key``
    is the backend's advisory lock id of (tenant, name)."""

    MODEL_PROBE = "v.model || ''"  # one primary-key probe a chunk (search.MODEL_PROBE says why)

    ORDER = 'path COLLATE "C"'

    def __init__(self, db: Session, tenant: str, lock_key: Callable[[str, str], int]) -> None:
        super().__init__(db, tenant)
        self._lock_key = lock_key

    def _under(self, directory: str) -> tuple[str, tuple[Any, ...]]:
        escaped = directory.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return "path LIKE ? ESCAPE '\\'", (escaped + "/%",)

    def begin(self) -> None:
        db, tenant = self._db, self.tenant
        # "\x00" cannot start a subject, so this lock is no subject's.
        db.run("SELECT pg_advisory_xact_lock(?)", (self._lock_key(tenant, "\x00documents"),))

    def lock(self, path: str) -> DocumentRow | None:
        return self._live(path, " FOR UPDATE")

    def lock_under(self, directory: str) -> list[DocumentRow]:
        return self._live_under(directory, " FOR UPDATE")

    def replace_chunks(self, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        db, tenant = self._db, self.tenant
        db.run("DELETE FROM document_chunks WHERE tenant = ? AND doc_id = ?", (tenant, row.doc_id))
        if chunks:
            rows = [(tenant, row.doc_id, row.revision, row.path, c.start_line, c.end_line, c.text) for c in chunks]
            for statement, params in db.dialect.batches(_CHUNKS, rows, portable=True):
                db.run(statement, params)

    def keyword_chunks(self, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]:
        if not terms:
            return []
        request = KeywordChunks(tuple(terms), limit)
        return self._scored(*keyword_chunks_statement(self.tenant, request), request=request)

    def put_vectors(self, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]) -> None:
        db, tenant = self._db, self.tenant
        for chunk_id, vector in items:
            db.run(
                "INSERT INTO document_vectors (tenant, chunk_id, model, dims, embedding) "
                "SELECT tenant, chunk_id, ?, ?, ?::real[]::vector FROM document_chunks "
                "WHERE tenant = ? AND chunk_id = ? "
                "ON CONFLICT (tenant, chunk_id, model) DO UPDATE "
                "SET dims = excluded.dims, embedding = excluded.embedding",
                (model, int(np.asarray(vector).shape[0]), Floats(vector), tenant, chunk_id),
            )

    def vector_chunks(
        self, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]:
        dims = int(vector.shape[0])
        return self._scored(
            f"SELECT {CHUNK}, 1 - (v.embedding::vector({dims}) <=> {query_vector(dims)}) AS score "
            "FROM document_vectors v JOIN document_chunks c ON c.tenant = v.tenant AND c.chunk_id = v.chunk_id "
            f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims} ORDER BY score DESC LIMIT ?",
            (Floats(vector), self.tenant, model, limit),
        )
