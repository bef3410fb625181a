"""The steps every document change takes inside its unit of work: lock the file it
changes, check that no file stands where a directory must, and commit the new text as
the document's next revision with its search chunks."""

from __future__ import annotations

from .._core.errors import ConflictError
from ..store import DocumentRow, RevisionRow, WriteTransaction
from ._checks import DEFAULT_RETENTION, Provenance, not_found, tool_error
from .paths import ROOT, ancestors
from .text import chunks


def lock_file(txn: WriteTransaction, path: str) -> DocumentRow:
    """The live document at ``path``, locked; the memory tool's error for a directory or
    nothing there."""
    docs = txn.documents()
    row = docs.lock(path)
    if row is None:
        if docs.has_under(path) or path == ROOT:
            raise tool_error("path", path, f"The path {path} is not a file.")
        raise not_found(path)
    return row


def check_parents(txn: WriteTransaction, path: str, action: str) -> None:
    """A ConflictError naming ``action`` when a live file stands where ``path`` needs a directory."""
    files = txn.documents().live_paths(ancestors(path))
    if files:
        raise ConflictError(f"{action}: {min(files)} is a file", field="path", value=path)


def commit(
    txn: WriteTransaction, row: DocumentRow | None, path: str, content: str | None, op: str, by: Provenance,
    now: int, *, source: str | None = None, retention: str = DEFAULT_RETENTION,
) -> DocumentRow:
    """Store ``content`` (None: deleted) at ``path`` as the document's next revision, a
    new document when ``row`` is None, its chunks replaced; never before its last change."""
    size = 0 if content is None else len(content.encode())
    if row is None:
        row = DocumentRow(0, path, True, 1, content, size, retention, source, None, now, now)
        row.doc_id = txn.documents().insert(row)
    else:
        row.path, row.live, row.revision, row.content, row.size = path, content is not None, row.revision + 1, \
            content, size
        row.updated_at = max(now, row.updated_at)
        txn.documents().update(row)
    txn.documents().add_revision(RevisionRow(
        row.doc_id, row.revision, path, op, content, by.author, by.episode, by.call, row.updated_at))
    txn.documents().replace_chunks(row, [] if content is None else chunks(content))
    return row
