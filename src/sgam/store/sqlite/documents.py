"""SQLite's own part of document memory: directory ranges, the chunks' FTS5 index and
vectors scanned in process. The shared statements are portable (``store/_sql/documents.py``).

Directory ranges use ``path > dir || '/' AND path < dir || '0'`` ('0' follows '/' in
code-point order), an index range that needs no LIKE escaping."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._documents import Chunk, ChunkRow, DocumentRow
from .._sql.documents import CHUNK, PortableDocuments
from .._sql.session import in_list
from .fts import fts_query


class SQLiteDocuments(PortableDocuments):
    """``DocumentStore`` in one read or unit of work on the backend's connection; a write is
    already ``BEGIN IMMEDIATE``, so ``lock`` needs no more than a read."""

    def _under(self, directory: str) -> tuple[str, tuple[Any, ...]]:
        return "path > ? || '/' AND path < ? || '0'", (directory, directory)

    def begin(self) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serialises every write of the file."""

    def lock(self, path: str) -> DocumentRow | None:
        return self.live(path)

    def lock_under(self, directory: str) -> list[DocumentRow]:
        return self.live_under(directory)

    def replace_chunks(self, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        db, tenant = self._db, self.tenant
        db.run("DELETE FROM document_chunks WHERE doc_id = ?", (row.doc_id,))
        db.run_many(
            "INSERT INTO document_chunks (doc_id, tenant, revision, path, start_line, end_line, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(row.doc_id, tenant, row.revision, row.path, c.start_line, c.end_line, c.text) for c in chunks],
        )

    def _chunks_moved(self, chunk_ids: str, params: tuple[Any, ...]) -> None:
        """The FTS5 table holds the path too and no trigger follows an update of it."""
        db = self._db
        db.run("UPDATE document_chunks_fts SET path = (SELECT c.path FROM document_chunks c "
               f"WHERE c.chunk_id = document_chunks_fts.rowid) WHERE rowid IN ({chunk_ids})", params)

    def keyword_chunks(self, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]:
        if not terms:
            return []
        sql = (f"SELECT {CHUNK}, bm25(document_chunks_fts, 0.5, 1.0) AS rank FROM document_chunks_fts "
               "JOIN document_chunks c ON c.chunk_id = document_chunks_fts.rowid "
               "WHERE document_chunks_fts MATCH ? AND c.tenant = ? ORDER BY rank LIMIT ?")
        return self._scored(sql, (fts_query(terms), self.tenant, limit), sign=-1.0)

    def put_vectors(self, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]) -> None:
        db, tenant = self._db, self.tenant
        db.run_many(
            "INSERT OR REPLACE INTO document_vectors (chunk_id, tenant, model, vector) "
            "SELECT chunk_id, tenant, ?, ? FROM document_chunks WHERE chunk_id = ? AND tenant = ?",
            [(model, np.asarray(vector, dtype=np.float32).tobytes(), chunk_id, tenant) for chunk_id, vector in items],
        )

    def vector_chunks(
        self, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]:
        """Exact cosine over the tenant's chunk vectors: documents are few next to episodes."""
        db, tenant = self._db, self.tenant
        stored = db.rows("SELECT chunk_id, vector FROM document_vectors WHERE tenant = ? AND model = ?",
                         (tenant, model))
        if not stored:
            return []
        matrix = np.stack([np.frombuffer(row[1], dtype=np.float32) for row in stored])
        if matrix.shape[1] != vector.shape[0]:
            return []
        scores = matrix @ vector
        best = np.argsort(-scores)[:limit]
        ids = [int(stored[i][0]) for i in best]
        found = {int(row[0]): ChunkRow(*row)
                 for row in db.rows(f"SELECT {CHUNK} FROM document_chunks c WHERE {in_list('c.chunk_id', len(ids))}",
                                    ids)}
        return [(found[ids[n]], float(scores[i])) for n, i in enumerate(best) if ids[n] in found]
