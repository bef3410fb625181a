"""SQLite tables of document memory: documents, revisions, chunks with FTS5, vectors.

Directory ranges use ``path > dir || '/' AND path < dir || '0'`` ('0' follows '/' in
code-point order), an index range that needs no LIKE escaping."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._documents import Chunk, ChunkRow, DocumentRow, RevisionRow
from .fts import fts_query

_DOC = ("doc_id, path, live, revision, content, size, retention, source, reviewed_at, created_at, "
        "updated_at")
_REV = "doc_id, revision, path, op, content, author, episode, call_id, recorded_at"
_CHUNK = "c.chunk_id, c.doc_id, c.revision, c.path, c.start_line, c.end_line, c.text"
_UNDER = "path > ? || '/' AND path < ? || '0'"


def _conn(handle: object) -> sqlite3.Connection:
    conn = getattr(handle, "_conn", None)
    assert isinstance(conn, sqlite3.Connection), "a SQLite read or unit of work"
    return conn


def _tenant(handle: object) -> str:
    tenant = getattr(handle, "tenant", None)
    assert isinstance(tenant, str)
    return tenant


def _doc(row: tuple[Any, ...]) -> DocumentRow:
    values = list(row)
    values[2] = bool(values[2])
    return DocumentRow(*values)


class SQLiteDocuments:
    """``DocumentStore`` on the backend's connection; a write is already ``BEGIN IMMEDIATE``,
    so ``lock`` needs no more than a read."""

    def begin(self, handle: object) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serialises every write of the file."""

    def live(self, handle: object, path: str) -> DocumentRow | None:
        row = _conn(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = ? AND path = ? AND live = 1", (_tenant(handle), path)
        ).fetchone()
        return _doc(row) if row else None

    lock = live

    def live_under(self, handle: object, directory: str) -> list[DocumentRow]:
        rows = _conn(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = ? AND live = 1 AND {_UNDER} ORDER BY path",
            (_tenant(handle), directory, directory),
        ).fetchall()
        return [_doc(row) for row in rows]

    lock_under = live_under

    def live_paths(self, handle: object, paths: Sequence[str]) -> set[str]:
        if not paths:
            return set()
        marks = ", ".join("?" for _ in paths)
        rows = _conn(handle).execute(
            f"SELECT path FROM documents WHERE tenant = ? AND live = 1 AND path IN ({marks})",
            (_tenant(handle), *paths),
        ).fetchall()
        return {str(row[0]) for row in rows}

    def has_under(self, handle: object, directory: str) -> bool:
        row = _conn(handle).execute(
            f"SELECT 1 FROM documents WHERE tenant = ? AND live = 1 AND {_UNDER} LIMIT 1",
            (_tenant(handle), directory, directory),
        ).fetchone()
        return row is not None

    def last_deleted(self, handle: object, path: str) -> DocumentRow | None:
        row = _conn(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = ? AND path = ? AND live = 0 "
            "ORDER BY updated_at DESC, doc_id DESC LIMIT 1",
            (_tenant(handle), path),
        ).fetchone()
        return _doc(row) if row else None

    def ever_at(self, handle: object, path: str) -> list[int]:
        rows = _conn(handle).execute(
            "SELECT DISTINCT doc_id FROM document_revisions WHERE tenant = ? AND path = ? ORDER BY doc_id",
            (_tenant(handle), path),
        ).fetchall()
        return [int(row[0]) for row in rows]

    def revisions(self, handle: object, doc_id: int) -> list[RevisionRow]:
        rows = _conn(handle).execute(
            f"SELECT {_REV} FROM document_revisions WHERE tenant = ? AND doc_id = ? ORDER BY revision",
            (_tenant(handle), doc_id),
        ).fetchall()
        return [RevisionRow(*row) for row in rows]

    def revision(self, handle: object, doc_id: int, revision: int) -> RevisionRow | None:
        row = _conn(handle).execute(
            f"SELECT {_REV} FROM document_revisions WHERE tenant = ? AND doc_id = ? AND revision = ?",
            (_tenant(handle), doc_id, revision),
        ).fetchone()
        return RevisionRow(*row) if row else None

    def all_live(self, handle: object) -> list[DocumentRow]:
        rows = _conn(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = ? AND live = 1 ORDER BY path", (_tenant(handle),)
        ).fetchall()
        return [_doc(row) for row in rows]

    def insert(self, handle: object, row: DocumentRow) -> int:
        cursor = _conn(handle).execute(
            "INSERT INTO documents (tenant, path, live, revision, content, size, retention, source, "
            "reviewed_at, created_at, updated_at, kept_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (_tenant(handle), row.path, int(row.live), row.revision, row.content, row.size, row.retention,
             row.source, row.reviewed_at, row.created_at, row.updated_at, row.created_at),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def update(self, handle: object, row: DocumentRow) -> None:
        _conn(handle).execute(
            "UPDATE documents SET path = ?, live = ?, revision = ?, content = ?, size = ?, retention = ?, "
            "source = ?, reviewed_at = ?, updated_at = ? WHERE tenant = ? AND doc_id = ?",
            (row.path, int(row.live), row.revision, row.content, row.size, row.retention, row.source,
             row.reviewed_at, row.updated_at, _tenant(handle), row.doc_id),
        )

    def add_revision(self, handle: object, tenant: str, row: RevisionRow) -> None:
        _conn(handle).execute(
            f"INSERT INTO document_revisions (tenant, {_REV}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tenant, row.doc_id, row.revision, row.path, row.op, row.content, row.author, row.episode,
             row.call_id, row.recorded_at),
        )

    def replace_chunks(self, handle: object, tenant: str, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        conn = _conn(handle)
        conn.execute("DELETE FROM document_chunks WHERE doc_id = ?", (row.doc_id,))
        conn.executemany(
            "INSERT INTO document_chunks (doc_id, tenant, revision, path, start_line, end_line, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(row.doc_id, tenant, row.revision, row.path, c.start_line, c.end_line, c.text) for c in chunks],
        )

    def erase(self, handle: object, doc_ids: Sequence[int]) -> int:
        conn = _conn(handle)
        removed = 0
        for doc_id in doc_ids:
            count = conn.execute(
                "SELECT count(*) FROM document_revisions WHERE tenant = ? AND doc_id = ?", (_tenant(handle), doc_id)
            ).fetchone()
            removed += int(count[0])
            conn.execute("DELETE FROM documents WHERE tenant = ? AND doc_id = ?", (_tenant(handle), doc_id))
        return removed

    # lifecycle

    def document(self, handle: object, doc_id: int) -> DocumentRow | None:
        row = _conn(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = ? AND doc_id = ?", (_tenant(handle), doc_id)
        ).fetchone()
        return _doc(row) if row else None

    def due_documents(self, handle: object, now: int) -> list[tuple[int, int]]:
        rows = _conn(handle).execute(
            "SELECT d.doc_id, ? - c.ttl FROM retention_classes c CROSS JOIN documents d INDEXED BY "
            "documents_by_deadline WHERE c.tenant = ? AND c.ttl IS NOT NULL AND d.tenant = c.tenant "
            "AND d.retention = c.name AND d.kept_since <= ? - c.ttl ORDER BY d.doc_id",
            (now, _tenant(handle), now),
        ).fetchall()
        return [(int(row[0]), int(row[1])) for row in rows]

    def expire_revisions(self, handle: object, doc_id: int, cutoff: int) -> int:
        conn, tenant = _conn(handle), _tenant(handle)
        removed = conn.execute(
            "DELETE FROM document_revisions WHERE tenant = ? AND doc_id = ? AND recorded_at <= ?",
            (tenant, doc_id, cutoff),
        ).rowcount
        oldest = conn.execute(
            "SELECT min(recorded_at) FROM document_revisions WHERE tenant = ? AND doc_id = ?", (tenant, doc_id)
        ).fetchone()[0]
        if oldest is None:
            conn.execute("DELETE FROM documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id))
        else:
            conn.execute("UPDATE documents SET kept_since = ? WHERE tenant = ? AND doc_id = ?",
                         (oldest, tenant, doc_id))
        return int(removed)

    def revisions_naming(self, handle: object, episode_ids: Sequence[str]) -> list[tuple[int, int]]:
        found: dict[int, int] = {}
        for start in range(0, len(episode_ids), 500):
            chunk = list(episode_ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            for doc_id, revision in _conn(handle).execute(
                f"SELECT doc_id, min(revision) FROM document_revisions WHERE tenant = ? AND episode IN ({marks}) "
                "GROUP BY doc_id", (_tenant(handle), *chunk),
            ):
                found[int(doc_id)] = min(int(revision), found.get(int(doc_id), int(revision)))
        return sorted(found.items())

    def drop_revisions_from(self, handle: object, doc_id: int, revision: int) -> int:
        return int(_conn(handle).execute(
            "DELETE FROM document_revisions WHERE tenant = ? AND doc_id = ? AND revision >= ?",
            (_tenant(handle), doc_id, revision),
        ).rowcount)

    # search

    def keyword_chunks(self, handle: object, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]:
        if not terms:
            return []
        rows = _conn(handle).execute(
            f"SELECT {_CHUNK}, bm25(document_chunks_fts, 0.5, 1.0) AS rank FROM document_chunks_fts "
            "JOIN document_chunks c ON c.chunk_id = document_chunks_fts.rowid "
            "WHERE document_chunks_fts MATCH ? AND c.tenant = ? ORDER BY rank LIMIT ?",
            (fts_query(terms), _tenant(handle), limit),
        ).fetchall()
        return [(ChunkRow(*row[:7]), -float(row[7])) for row in rows]

    def chunks_without_vectors(self, handle: object, model: str, limit: int) -> list[ChunkRow]:
        rows = _conn(handle).execute(
            f"SELECT {_CHUNK} FROM document_chunks c WHERE c.tenant = ? AND NOT EXISTS "
            "(SELECT 1 FROM document_vectors v WHERE v.chunk_id = c.chunk_id AND v.model = ?) "
            "ORDER BY c.chunk_id LIMIT ?",
            (_tenant(handle), model, limit),
        ).fetchall()
        return [ChunkRow(*row) for row in rows]

    def put_vectors(self, handle: object, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]) -> None:
        _conn(handle).executemany(
            "INSERT OR REPLACE INTO document_vectors (chunk_id, tenant, model, vector) "
            "SELECT chunk_id, tenant, ?, ? FROM document_chunks WHERE chunk_id = ? AND tenant = ?",
            [(model, np.asarray(vector, dtype=np.float32).tobytes(), chunk_id, _tenant(handle))
             for chunk_id, vector in items],
        )

    def vector_chunks(
        self, handle: object, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]:
        """Exact cosine over the tenant's chunk vectors: documents are few next to episodes."""
        conn = _conn(handle)
        rows = conn.execute(
            "SELECT chunk_id, vector FROM document_vectors WHERE tenant = ? AND model = ?", (_tenant(handle), model)
        ).fetchall()
        if not rows:
            return []
        matrix = np.stack([np.frombuffer(row[1], dtype=np.float32) for row in rows])
        if matrix.shape[1] != vector.shape[0]:
            return []
        scores = matrix @ vector
        best = np.argsort(-scores)[:limit]
        ids = [int(rows[i][0]) for i in best]
        marks = ", ".join("?" for _ in ids)
        found = {int(row[0]): ChunkRow(*row) for row in conn.execute(
            f"SELECT {_CHUNK} FROM document_chunks c WHERE c.chunk_id IN ({marks})", ids)}
        return [(found[ids[n]], float(scores[i])) for n, i in enumerate(best) if ids[n] in found]
