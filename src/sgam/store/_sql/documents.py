"""Document memory's statements that both backends share: looking documents and
revisions up, and storing them. Each backend's ``DocumentStore`` builds on this and keeps
what is its own: how a directory range is found and paths are ordered, row locks, the
chunks' text index and the vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .._documents import ChunkRow, DocumentRow, RevisionRow
from .._requests import ReadAhead
from .session import Session, chunks, in_list

DOC = "doc_id, path, live, revision, content, size, retention, source, reviewed_at, created_at, updated_at"
REV = "doc_id, revision, path, op, content, author, episode, call_id, recorded_at"
CHUNK = "c.chunk_id, c.doc_id, c.revision, c.path, c.start_line, c.end_line, c.text"


def doc_from_row(row: tuple[Any, ...]) -> DocumentRow:
    values = list(row)
    values[2] = bool(values[2])
    return DocumentRow(*values)


class PortableDocuments:
    """The shared part of a ``DocumentStore``, bound to the session and tenant of one read
    or unit of work; ``ORDER`` is how paths sort (code points)."""

    MODEL_PROBE: ClassVar[str] = "v.model"
    """How a chunk's vector model is compared (PostgreSQL: an expression, ``postgres/search.py``)."""

    ORDER = "path"

    def __init__(self, db: Session, tenant: str) -> None:
        self._db = db
        self.tenant = tenant

    if TYPE_CHECKING:  # each backend finds a directory's documents with its own index
        def _under(self, directory: str) -> tuple[str, tuple[Any, ...]]: ...

    def _live(self, path: str, suffix: str = "") -> DocumentRow | None:
        db, tenant = self._db, self.tenant
        row = db.row(f"SELECT {DOC} FROM documents WHERE tenant = ? AND path = ? AND live = {db.true}{suffix}",
                     (tenant, path))
        return doc_from_row(row) if row else None

    def _live_under(self, directory: str, suffix: str = "") -> list[DocumentRow]:
        db, tenant = self._db, self.tenant
        where, params = self._under(directory)
        rows = db.rows(f"SELECT {DOC} FROM documents WHERE tenant = ? AND live = {db.true} AND {where} "
                       f"ORDER BY {self.ORDER}{suffix}", (tenant, *params))
        return [doc_from_row(row) for row in rows]

    def _scored(self, sql: str, params: tuple[Any, ...], sign: float = 1.0, request: ReadAhead | None = None,
                ) -> list[tuple[ChunkRow, float]]:
        """Chunks from ``sql`` selecting ``CHUNK`` then a score (times ``sign``: best first
        is highest); ``request``: the read ``sql`` answers, if it may have been sent ahead."""
        db = self._db
        rows = db.rows(sql, params) if request is None else db.answer(request, sql, params)
        return [(ChunkRow(*row[:7]), sign * float(row[7])) for row in rows]

    def live(self, path: str) -> DocumentRow | None:
        return self._live(path)

    def live_under(self, directory: str) -> list[DocumentRow]:
        """Live documents strictly below ``directory``, by path (content included)."""
        return self._live_under(directory)

    def live_paths(self, paths: Sequence[str]) -> set[str]:
        db, tenant = self._db, self.tenant
        found: set[str] = set()
        for chunk in chunks(paths):
            rows = db.rows(f"SELECT path FROM documents WHERE tenant = ? AND live = {db.true} "
                           f"AND {in_list('path', len(chunk))}", (tenant, *chunk))
            found.update(str(row[0]) for row in rows)
        return found

    def has_under(self, directory: str) -> bool:
        db, tenant = self._db, self.tenant
        where, params = self._under(directory)
        return db.row(f"SELECT 1 FROM documents WHERE tenant = ? AND live = {db.true} AND {where} LIMIT 1",
                      (tenant, *params)) is not None

    def last_deleted(self, path: str) -> DocumentRow | None:
        """The most recently deleted document whose last path was ``path``."""
        db, tenant = self._db, self.tenant
        row = db.row(f"SELECT {DOC} FROM documents WHERE tenant = ? AND path = ? AND live = {db.false} "
                     "ORDER BY updated_at DESC, doc_id DESC LIMIT 1", (tenant, path))
        return doc_from_row(row) if row else None

    def ever_at(self, path: str) -> list[int]:
        db, tenant = self._db, self.tenant
        rows = db.rows("SELECT DISTINCT doc_id FROM document_revisions WHERE tenant = ? AND path = ? ORDER BY doc_id",
                       (tenant, path))
        return [int(row[0]) for row in rows]

    def revisions(self, doc_id: int) -> list[RevisionRow]:
        db, tenant = self._db, self.tenant
        rows = db.rows(f"SELECT {REV} FROM document_revisions WHERE tenant = ? AND doc_id = ? ORDER BY revision",
                       (tenant, doc_id))
        return [RevisionRow(*row) for row in rows]

    def revision(self, doc_id: int, revision: int) -> RevisionRow | None:
        db, tenant = self._db, self.tenant
        row = db.row(f"SELECT {REV} FROM document_revisions WHERE tenant = ? AND doc_id = ? AND revision = ?",
                     (tenant, doc_id, revision))
        return RevisionRow(*row) if row else None

    def all_live(self) -> list[DocumentRow]:
        db, tenant = self._db, self.tenant
        rows = db.rows(f"SELECT {DOC} FROM documents WHERE tenant = ? AND live = {db.true} ORDER BY {self.ORDER}",
                       (tenant,))
        return [doc_from_row(row) for row in rows]

    def insert(self, row: DocumentRow) -> int:
        """Store a new document (``row.doc_id`` is ignored); its id."""
        db, tenant = self._db, self.tenant
        return db.insert(
            "INSERT INTO documents (tenant, path, live, revision, content, size, retention, source, reviewed_at, "
            "created_at, updated_at, kept_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tenant, row.path, bool(row.live), row.revision, row.content, row.size, row.retention, row.source,
             db.moment(row.reviewed_at), db.moment(row.created_at), db.moment(row.updated_at),
             db.moment(row.created_at)),
            "doc_id",
        )

    def update(self, row: DocumentRow) -> None:
        db, tenant = self._db, self.tenant
        db.run(
            "UPDATE documents SET path = ?, live = ?, revision = ?, content = ?, size = ?, retention = ?, "
            "source = ?, reviewed_at = ?, updated_at = ? WHERE tenant = ? AND doc_id = ?",
            (row.path, bool(row.live), row.revision, row.content, row.size, row.retention, row.source,
             db.moment(row.reviewed_at), db.moment(row.updated_at), tenant, row.doc_id),
        )

    def move_under(self, old: str, new: str, moved_at: int, author: str | None,
                   episode: str | None, call: str | None) -> None:
        """Set-based: a directory of 10,000 documents is five statements, not 10,000 round
        trips of re-chunking. Chunks keep their text (chunking depends on the text only)
        and take the new path; their vectors embed the path, so they are dropped for the
        indexer to embed again, as after any change."""
        db, tenant = self._db, self.tenant
        before, before_params = self._under(old)
        after, after_params = self._under(new)
        tail = len(old) + 1
        at = db.moment(moved_at)
        db.run(f"UPDATE documents SET path = ? || substr(path, ?), revision = revision + 1, "
               f"updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END "
               f"WHERE tenant = ? AND live = {db.true} AND {before}", (new, tail, at, at, tenant, *before_params))
        db.run(f"INSERT INTO document_revisions (tenant, {REV}) SELECT tenant, doc_id, revision, path, 'rename', "
               f"content, ?, ?, ?, updated_at FROM documents WHERE tenant = ? AND live = {db.true} AND {after}",
               (author, episode, call, tenant, *after_params))
        moved = f"SELECT doc_id FROM documents WHERE tenant = ? AND live = {db.true} AND {after}"
        db.run(f"DELETE FROM document_vectors WHERE tenant = ? AND chunk_id IN (SELECT chunk_id FROM document_chunks "
               f"WHERE tenant = ? AND doc_id IN ({moved}))", (tenant, tenant, tenant, *after_params))
        db.run(f"UPDATE document_chunks SET path = ? || substr(path, ?), revision = revision + 1 "
               f"WHERE tenant = ? AND doc_id IN ({moved})", (new, tail, tenant, tenant, *after_params))
        self._chunks_moved(f"SELECT chunk_id FROM document_chunks WHERE tenant = ? AND doc_id IN ({moved})",
                           (tenant, tenant, *after_params))

    def _chunks_moved(self, chunk_ids: str, params: tuple[Any, ...]) -> None:
        """After ``move_under`` changed the path of the chunks ``chunk_ids`` selects: a
        backend whose text index does not follow the table brings it along."""

    def add_revision(self, row: RevisionRow) -> None:
        db, tenant = self._db, self.tenant
        db.run(
            f"INSERT INTO document_revisions (tenant, {REV}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tenant, row.doc_id, row.revision, row.path, row.op, row.content, row.author, row.episode,
             row.call_id, db.moment(row.recorded_at)),
        )

    def erase(self, doc_ids: Sequence[int]) -> int:
        """Delete documents with every revision, chunk and vector; how many revisions went."""
        db, tenant = self._db, self.tenant
        removed = 0
        for chunk in chunks(doc_ids):
            ids = in_list("doc_id", len(chunk))
            counted = db.row(f"SELECT count(*) FROM document_revisions WHERE tenant = ? AND {ids}", (tenant, *chunk))
            removed += int(counted[0]) if counted else 0
            db.run(f"DELETE FROM documents WHERE tenant = ? AND {ids}", (tenant, *chunk))
        return removed

    # lifecycle (inside ``run_write``, after ``begin``)

    def document(self, doc_id: int) -> DocumentRow | None:
        db, tenant = self._db, self.tenant
        row = db.row(f"SELECT {DOC} FROM documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id))
        return doc_from_row(row) if row else None

    def due_documents(self, now: int) -> list[tuple[int, int]]:
        db, tenant = self._db, self.tenant
        rows = db.rows(
            f"SELECT d.doc_id, c.ttl FROM retention_classes c JOIN documents d INDEXED BY documents_by_deadline "
            f"ON d.tenant = c.tenant AND d.retention = c.name AND d.kept_since <= ? - {db.span('c.ttl')} "
            "WHERE c.tenant = ? AND c.ttl IS NOT NULL ORDER BY d.doc_id",
            (db.moment(now), tenant),
        )
        return [(int(row[0]), now - int(row[1])) for row in rows]

    def expire_revisions(self, doc_id: int, cutoff: int) -> int:
        db, tenant = self._db, self.tenant
        removed = db.count("DELETE FROM document_revisions WHERE tenant = ? AND doc_id = ? AND recorded_at <= ?",
                           (tenant, doc_id, db.moment(cutoff)))
        oldest = db.row("SELECT min(recorded_at) FROM document_revisions WHERE tenant = ? AND doc_id = ?",
                        (tenant, doc_id))
        if oldest is None or oldest[0] is None:
            db.run("DELETE FROM documents WHERE tenant = ? AND doc_id = ?", (tenant, doc_id))
        else:
            db.run("UPDATE documents SET kept_since = ? WHERE tenant = ? AND doc_id = ?",
                   (db.moment(int(oldest[0])), tenant, doc_id))
        return removed

    def revisions_naming(self, episode_ids: Sequence[str]) -> list[tuple[int, int]]:
        db, tenant = self._db, self.tenant
        found: dict[int, int] = {}
        for chunk in chunks(episode_ids):
            for doc_id, revision in db.rows(
                f"SELECT doc_id, min(revision) FROM document_revisions WHERE tenant = ? "
                f"AND {in_list('episode', len(chunk))} GROUP BY doc_id", (tenant, *chunk),
            ):
                found[int(doc_id)] = min(int(revision), found.get(int(doc_id), int(revision)))
        return sorted(found.items())

    def drop_revisions_from(self, doc_id: int, revision: int) -> int:
        db, tenant = self._db, self.tenant
        return db.count("DELETE FROM document_revisions WHERE tenant = ? AND doc_id = ? AND revision >= ?",
                        (tenant, doc_id, revision))

    def chunks_without_vectors(self, model: str, limit: int) -> list[ChunkRow]:
        db, tenant = self._db, self.tenant
        rows = db.rows(
            f"SELECT {CHUNK} FROM document_chunks c WHERE c.tenant = ? AND NOT EXISTS "
            "(SELECT 1 FROM document_vectors v WHERE v.tenant = c.tenant AND v.chunk_id = c.chunk_id "
            f"AND {self.MODEL_PROBE} = ?) ORDER BY c.chunk_id LIMIT ?",
            (tenant, model, limit),
        )
        return [ChunkRow(*row) for row in rows]
