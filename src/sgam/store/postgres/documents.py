"""PostgreSQL tables of document memory: documents, revisions, chunks (tsvector + GIN),
vectors (pgvector, exact cosine). Row-level security scopes every statement.

Document writes of a tenant serialise on one transaction-level advisory lock: a change
checks the tree (is a parent a file? is the destination free?) before it writes, and
only a lock over the tenant's whole tree makes check and write atomic across paths."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._documents import Chunk, ChunkRow, DocumentRow, RevisionRow
from .adapters import Micros, micros

if TYPE_CHECKING:  # the backend imports this module when asked for its document store
    from .backend import Cursor

_DOC = ("doc_id, path, live, revision, content, size, retention, source, reviewed_at, created_at, "
        "updated_at")
_REV = "doc_id, revision, path, op, content, author, episode, call_id, recorded_at"
_CHUNK = "c.chunk_id, c.doc_id, c.revision, c.path, c.start_line, c.end_line, c.text"
_UNDER = "path LIKE %s ESCAPE '\\'"
_WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"
_TTL = "c.ttl * interval '1 microsecond'"


def _cur(handle: object) -> Cursor:
    cur = getattr(handle, "_cur", None)
    assert cur is not None, "a PostgreSQL read or unit of work"
    found: Cursor = cur
    return found


def _tenant(handle: object) -> str:
    tenant = getattr(handle, "tenant", None)
    assert isinstance(tenant, str)
    return tenant


def _below(directory: str) -> str:
    escaped = directory.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "/%"


def _doc(row: tuple[Any, ...]) -> DocumentRow:
    return DocumentRow(*row)


class PostgresDocuments:
    """``DocumentStore`` over the backend's tenant-scoped transactions; ``lock_key`` is
    the backend's advisory lock id of (tenant, name)."""

    def __init__(self, lock_key: Callable[[str, str], int]) -> None:
        self._lock_key = lock_key

    def begin(self, handle: object) -> None:
        # "\x00" cannot start a subject, so this lock is no subject's.
        key = self._lock_key(_tenant(handle), "\x00documents")
        _cur(handle).execute("SELECT pg_advisory_xact_lock(%s)", (key,))

    def live(self, handle: object, path: str) -> DocumentRow | None:
        row = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND path = %s AND live", (_tenant(handle), path)
        ).fetchone()
        return _doc(row) if row else None

    def lock(self, handle: object, path: str) -> DocumentRow | None:
        row = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND path = %s AND live FOR UPDATE",
            (_tenant(handle), path),
        ).fetchone()
        return _doc(row) if row else None

    def live_under(self, handle: object, directory: str) -> list[DocumentRow]:
        rows = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND live AND {_UNDER} ORDER BY path COLLATE \"C\"",
            (_tenant(handle), _below(directory)),
        ).fetchall()
        return [_doc(row) for row in rows]

    def lock_under(self, handle: object, directory: str) -> list[DocumentRow]:
        rows = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND live AND {_UNDER} "
            "ORDER BY path COLLATE \"C\" FOR UPDATE",
            (_tenant(handle), _below(directory)),
        ).fetchall()
        return [_doc(row) for row in rows]

    def live_paths(self, handle: object, paths: Sequence[str]) -> set[str]:
        if not paths:
            return set()
        rows = _cur(handle).execute(
            "SELECT path FROM documents WHERE tenant = %s AND live AND path = ANY(%s::text[])",
            (_tenant(handle), list(paths)),
        ).fetchall()
        return {str(row[0]) for row in rows}

    def has_under(self, handle: object, directory: str) -> bool:
        row = _cur(handle).execute(
            f"SELECT 1 FROM documents WHERE tenant = %s AND live AND {_UNDER} LIMIT 1",
            (_tenant(handle), _below(directory)),
        ).fetchone()
        return row is not None

    def last_deleted(self, handle: object, path: str) -> DocumentRow | None:
        row = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND path = %s AND NOT live "
            "ORDER BY updated_at DESC, doc_id DESC LIMIT 1",
            (_tenant(handle), path),
        ).fetchone()
        return _doc(row) if row else None

    def ever_at(self, handle: object, path: str) -> list[int]:
        rows = _cur(handle).execute(
            "SELECT DISTINCT doc_id FROM document_revisions WHERE tenant = %s AND path = %s ORDER BY doc_id",
            (_tenant(handle), path),
        ).fetchall()
        return [int(row[0]) for row in rows]

    def revisions(self, handle: object, doc_id: int) -> list[RevisionRow]:
        rows = _cur(handle).execute(
            f"SELECT {_REV} FROM document_revisions WHERE tenant = %s AND doc_id = %s ORDER BY revision",
            (_tenant(handle), doc_id),
        ).fetchall()
        return [RevisionRow(*row) for row in rows]

    def revision(self, handle: object, doc_id: int, revision: int) -> RevisionRow | None:
        row = _cur(handle).execute(
            f"SELECT {_REV} FROM document_revisions WHERE tenant = %s AND doc_id = %s AND revision = %s",
            (_tenant(handle), doc_id, revision),
        ).fetchone()
        return RevisionRow(*row) if row else None

    def all_live(self, handle: object) -> list[DocumentRow]:
        rows = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND live ORDER BY path COLLATE \"C\"",
            (_tenant(handle),),
        ).fetchall()
        return [_doc(row) for row in rows]

    def insert(self, handle: object, row: DocumentRow) -> int:
        found = _cur(handle).execute(
            "INSERT INTO documents (tenant, path, live, revision, content, size, retention, source, reviewed_at, "
            "created_at, updated_at, kept_since) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING doc_id",
            (_tenant(handle), row.path, row.live, row.revision, row.content, row.size, row.retention, row.source,
             micros(row.reviewed_at), Micros(row.created_at), Micros(row.updated_at), Micros(row.created_at)),
        ).fetchone()
        assert found is not None
        return int(found[0])

    def update(self, handle: object, row: DocumentRow) -> None:
        _cur(handle).execute(
            "UPDATE documents SET path = %s, live = %s, revision = %s, content = %s, size = %s, retention = %s, "
            "source = %s, reviewed_at = %s, updated_at = %s WHERE tenant = %s AND doc_id = %s",
            (row.path, row.live, row.revision, row.content, row.size, row.retention, row.source,
             micros(row.reviewed_at), Micros(row.updated_at), _tenant(handle), row.doc_id),
        )

    def add_revision(self, handle: object, tenant: str, row: RevisionRow) -> None:
        _cur(handle).execute(
            f"INSERT INTO document_revisions (tenant, {_REV}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (tenant, row.doc_id, row.revision, row.path, row.op, row.content, row.author, row.episode, row.call_id,
             Micros(row.recorded_at)),
        )

    def replace_chunks(self, handle: object, tenant: str, row: DocumentRow, chunks: Sequence[Chunk]) -> None:
        cur = _cur(handle)
        cur.execute("DELETE FROM document_chunks WHERE tenant = %s AND doc_id = %s", (tenant, row.doc_id))
        if chunks:
            cur.execute(
                "INSERT INTO document_chunks (tenant, doc_id, revision, path, start_line, end_line, text) "
                "SELECT %s, %s, %s, %s, * FROM unnest(%s::int[], %s::int[], %s::text[])",
                (tenant, row.doc_id, row.revision, row.path, [c.start_line for c in chunks],
                 [c.end_line for c in chunks], [c.text for c in chunks]),
            )

    def erase(self, handle: object, doc_ids: Sequence[int]) -> int:
        cur = _cur(handle)
        counted = cur.execute(
            "SELECT count(*) FROM document_revisions WHERE tenant = %s AND doc_id = ANY(%s::bigint[])",
            (_tenant(handle), list(doc_ids)),
        ).fetchone()
        cur.execute("DELETE FROM documents WHERE tenant = %s AND doc_id = ANY(%s::bigint[])",
                    (_tenant(handle), list(doc_ids)))
        return int(counted[0]) if counted else 0

    # lifecycle

    def document(self, handle: object, doc_id: int) -> DocumentRow | None:
        row = _cur(handle).execute(
            f"SELECT {_DOC} FROM documents WHERE tenant = %s AND doc_id = %s", (_tenant(handle), doc_id)
        ).fetchone()
        return _doc(row) if row else None

    def due_documents(self, handle: object, now: int) -> list[tuple[int, int]]:
        rows = _cur(handle).execute(
            f"SELECT d.doc_id, %s - {_TTL} FROM retention_classes c JOIN documents d "
            f"ON d.tenant = c.tenant AND d.retention = c.name AND d.kept_since <= %s - {_TTL} "
            "WHERE c.tenant = %s AND c.ttl IS NOT NULL ORDER BY d.doc_id",
            (Micros(now), Micros(now), _tenant(handle)),
        ).fetchall()
        return [(int(row[0]), int(row[1])) for row in rows]

    def expire_revisions(self, handle: object, doc_id: int, cutoff: int) -> int:
        cur, tenant = _cur(handle), _tenant(handle)
        removed = cur.execute(
            "DELETE FROM document_revisions WHERE tenant = %s AND doc_id = %s AND recorded_at <= %s RETURNING 1",
            (tenant, doc_id, Micros(cutoff)),
        ).fetchall()
        left = cur.execute(
            "UPDATE documents SET kept_since = (SELECT min(recorded_at) FROM document_revisions "
            "WHERE tenant = %s AND doc_id = %s) WHERE tenant = %s AND doc_id = %s "
            "AND EXISTS (SELECT 1 FROM document_revisions WHERE tenant = %s AND doc_id = %s) RETURNING 1",
            (tenant, doc_id, tenant, doc_id, tenant, doc_id),
        ).fetchall()
        if not left:
            cur.execute("DELETE FROM documents WHERE tenant = %s AND doc_id = %s", (tenant, doc_id))
        return len(removed)

    def revisions_naming(self, handle: object, episode_ids: Sequence[str]) -> list[tuple[int, int]]:
        rows = _cur(handle).execute(
            "SELECT doc_id, min(revision) FROM document_revisions WHERE tenant = %s AND episode = ANY(%s) "
            "GROUP BY doc_id ORDER BY doc_id",
            (_tenant(handle), list(episode_ids)),
        ).fetchall()
        return [(int(row[0]), int(row[1])) for row in rows]

    def drop_revisions_from(self, handle: object, doc_id: int, revision: int) -> int:
        return len(_cur(handle).execute(
            "DELETE FROM document_revisions WHERE tenant = %s AND doc_id = %s AND revision >= %s RETURNING 1",
            (_tenant(handle), doc_id, revision),
        ).fetchall())

    # search

    def keyword_chunks(self, handle: object, terms: Sequence[str], limit: int) -> list[tuple[ChunkRow, float]]:
        if not terms:
            return []
        rows = _cur(handle).execute(
            f"SELECT {_CHUNK}, ts_rank_cd({_WEIGHTS}, c.search, a.q) AS rank FROM document_chunks c, "
            "(SELECT sgam_tsquery_or(plainto_tsquery('english', term)) AS q FROM unnest(%s::text[]) AS u(term)) a "
            "WHERE c.tenant = %s AND c.search @@ a.q ORDER BY rank DESC, c.chunk_id LIMIT %s",
            (list(terms), _tenant(handle), limit),
        ).fetchall()
        return [(ChunkRow(*row[:7]), float(row[7])) for row in rows]

    def chunks_without_vectors(self, handle: object, model: str, limit: int) -> list[ChunkRow]:
        rows = _cur(handle).execute(
            f"SELECT {_CHUNK} FROM document_chunks c WHERE c.tenant = %s AND NOT EXISTS "
            "(SELECT 1 FROM document_vectors v WHERE v.tenant = c.tenant AND v.chunk_id = c.chunk_id "
            "AND v.model = %s) ORDER BY c.chunk_id LIMIT %s",
            (_tenant(handle), model, limit),
        ).fetchall()
        return [ChunkRow(*row) for row in rows]

    def put_vectors(self, handle: object, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]) -> None:
        cur = _cur(handle)
        for chunk_id, vector in items:
            values = np.asarray(vector, dtype=np.float32).astype(np.float64).tolist()
            cur.execute(
                "INSERT INTO document_vectors (tenant, chunk_id, model, dims, embedding) "
                "SELECT tenant, chunk_id, %s, %s, %s::float8[]::vector FROM document_chunks "
                "WHERE tenant = %s AND chunk_id = %s "
                "ON CONFLICT (tenant, chunk_id, model) DO UPDATE "
                "SET dims = excluded.dims, embedding = excluded.embedding",
                (model, len(values), values, _tenant(handle), chunk_id),
            )

    def vector_chunks(
        self, handle: object, model: str, vector: npt.NDArray[np.float32], limit: int
    ) -> list[tuple[ChunkRow, float]]:
        dims = int(vector.shape[0])
        values = np.asarray(vector, dtype=np.float32).astype(np.float64).tolist()
        rows = _cur(handle).execute(
            f"SELECT {_CHUNK}, 1 - (v.embedding::vector({dims}) <=> %s::float8[]::vector({dims})) AS score "
            "FROM document_vectors v JOIN document_chunks c ON c.tenant = v.tenant AND c.chunk_id = v.chunk_id "
            f"WHERE v.tenant = %s AND v.model = %s AND v.dims = {dims} ORDER BY score DESC LIMIT %s",
            (values, _tenant(handle), model, limit),
        ).fetchall()
        return [(ChunkRow(*row[:7]), float(row[7])) for row in rows]
