"""``Documents``: a tenant's files under /memories, every change a kept revision.

Each change is one unit of work that reads the document's current row (locked on
PostgreSQL), checks the caller's expected revision, computes the new text and writes
the document, a revision and its search chunks together: two writers cannot both build
on the same revision, so no update is lost. Error messages of the memory-tool commands
are the texts the tool returns (``sgam.tools.memory_tool``), so the two cannot drift.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.errors import ConflictError, NotFoundError, SgamError, ValidationError
from .._core.purpose import check_purpose
from .._core.secret import Digests
from .._core.time import parse_timestamp, to_micros
from .._core.values import check_optional_name, check_tenant
from ..lifecycle.participants import Reach
from ..lifecycle.responses import StoredResponses
from ..search.embedders import Embedder
from ..store import AuditRow, Backend, DocumentRow, ReadAhead, Reader, WriteTransaction
from ._checks import (
    ANONYMOUS,
    DEFAULT_RETENTION,
    Edit,
    Provenance,
    check_expected,
    check_retention,
    check_revision,
    not_found,
    revision_number,
    to_document,
    to_revision,
    tool_error,
)
from ._model import Document, DocumentHit, Entry, Revision
from .lifecycle import quoted_by
from .listing import entries
from .paths import ROOT, check_path, is_within
from .revisions import check_parents, commit, lock_file
from .text import check_content, insert_at, replace_once

if TYPE_CHECKING:
    from ..ledger.service import Ledger

T = TypeVar("T")
RECALL_PASSAGES = 5
_UNSET: Any = object()


class Documents:
    """Library API of document memory; ``Memory.documents`` is the instance to use."""

    def __init__(
        self, backend: Backend, clock: Callable[[], datetime], embedder: Embedder | None = None,
        digests: Digests | None = None, ledger: Ledger | None = None,
    ) -> None:
        self.backend = backend
        self._clock = clock
        self.embedder = embedder
        self._digests = digests if digests is not None else Digests(backend.url)
        self._ledger = ledger
        """With the ledger service (as ``Memory.documents`` has it), every read and change
        first settles the tenant's deadlines, documents' included."""

    def _now(self) -> int:
        return to_micros(self._clock())

    # reads ----------------------------------------------------------------------------

    def get(self, tenant: str, path: str) -> Document | None:
        """The live document at ``path``, or None."""
        path = check_path(path)
        with self._read(tenant) as reader:
            row = reader.documents().live(path)
        return None if row is None else to_document(tenant, row)

    def read(self, tenant: str, path: str) -> Document:
        found = self.get(tenant, path)
        if found is None:
            raise not_found(check_path(path))
        return found

    def is_directory(self, tenant: str, path: str) -> bool:
        path = check_path(path)
        if path == ROOT:
            return True
        with self._read(tenant) as reader:
            return reader.documents().has_under(path)

    def listing(self, tenant: str, path: str = ROOT, depth: int = 2, *, hidden: bool = False) -> list[Entry]:
        """Files and directories below ``path`` up to ``depth`` levels, by name at each
        level (directories first listed, then their contents); names starting with '.' are
        left out, with everything below them, unless ``hidden``."""
        path = check_path(path)
        with self._read(tenant) as reader:
            rows = reader.documents().live_under(path)
        if not rows and path != ROOT:
            raise not_found(path)
        return entries(rows, path, depth, hidden)

    def history(self, tenant: str, path: str) -> list[Revision]:
        """Every revision of the document at ``path`` (or, if none is live there, of the
        one deleted there last), oldest first."""
        path = check_path(path)
        with self._read(tenant) as reader:
            docs = reader.documents()
            row = docs.live(path) or docs.last_deleted(path)
            if row is None:
                raise not_found(path)
            return [to_revision(r) for r in docs.revisions(row.doc_id)]

    def revision(self, tenant: str, path: str, revision: int) -> Revision:
        path = check_path(path)
        number = revision_number(revision)
        with self._read(tenant) as reader:
            docs = reader.documents()
            row = docs.live(path) or docs.last_deleted(path)
            found = None if row is None else docs.revision(row.doc_id, number)
        if found is None:
            raise NotFoundError(f"{path} has no revision {number}", field="revision", value=number)
        return to_revision(found)

    def diff(self, tenant: str, path: str, old: int, new: int | None = None) -> str:
        """A unified diff from revision ``old`` to ``new`` (default: the latest)."""
        history = self.history(tenant, path)
        by_number = {r.revision: r for r in history}
        new = history[-1].revision if new is None else revision_number(new)
        for number in (revision_number(old), new):
            if number not in by_number:
                raise NotFoundError(f"{path} has no revision {number}", field="revision", value=number)
        before, after = by_number[old], by_number[new]
        return "".join(difflib.unified_diff(
            (before.content or "").splitlines(keepends=True), (after.content or "").splitlines(keepends=True),
            fromfile=f"{before.path}@{old}", tofile=f"{after.path}@{new}",
        ))

    def search(
        self, tenant: str, query: str, *, limit: int = 10, purpose: str | None = None,
    ) -> list[DocumentHit]:
        """Passages of live documents for ``query`` (keyword and vector, fused), each citing
        path, revision and lines; none that names a subject whose consent (for
        ``purpose``, or every purpose) is revoked."""
        from .search import search_documents

        check_tenant(tenant)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ValidationError("limit", limit, "must be an integer from 1 to 1000")
        scope = check_purpose(purpose)
        self._settle(tenant)
        return search_documents(self.backend, self._searching(tenant), tenant, query, limit=limit,
                                purpose=scope, confirm=self._confirm())

    def passages(
        self, tenant: str, question: str, vector_floor: float, revoked: set[str] | None = None, *,
        settled: bool = False, reader: Reader | None = None,
    ) -> list[DocumentHit]:
        """What ``recall`` cites: the few best passages, vector-only ones above ``vector_floor``,
        none naming a ``revoked`` subject (default: those revoked for every purpose).
        ``settled``: the caller has just settled the tenant's deadlines (recall has);
        ``reader``: the caller's read of ``tenant`` to search in (recall's)."""
        from .search import search_documents

        if not settled:
            self._settle(tenant)
        return search_documents(self.backend, self._searching(tenant), tenant, question, limit=RECALL_PASSAGES,
                                vector_floor=vector_floor, revoked=revoked, reader=reader, confirm=self._confirm())

    @staticmethod
    def passage_reads(question: str) -> list[ReadAhead]:
        """What ``passages`` asks first in the caller's read, for the read to send ahead."""
        from .search import passage_reads

        return passage_reads(question)

    def all(self, tenant: str) -> list[Document]:
        with self._read(tenant) as reader:
            return [to_document(tenant, row) for row in reader.documents().all_live()]

    # writes ---------------------------------------------------------------------------

    def create(
        self, tenant: str, path: str, content: str, *, by: Provenance = ANONYMOUS, source: str | None = None,
        retention: str = DEFAULT_RETENTION,
    ) -> Document:
        """A new document; never overwrites (ConflictError if ``path`` exists)."""
        return self.write(tenant, path, content, expected_revision=0, by=by, source=source, retention=retention)

    def write(
        self, tenant: str, path: str, content: str, *, expected_revision: int | None = None,
        by: Provenance = ANONYMOUS, source: str | None = None, retention: str | None = None,
        op: str | None = None,
    ) -> Document:
        """Set the whole text of ``path``, creating it if needed. ``expected_revision``: the
        revision the caller read (0: must not exist); another revision is a ConflictError."""
        path, content, by = check_path(path), check_content(content, "content"), by.checked()
        expected = check_expected(expected_revision)
        source = check_optional_name(source, "source")
        retention = None if retention is None else check_retention(retention)
        if path == ROOT:
            raise ConflictError(f"File {path} already exists", field="path", value=path)

        def work(txn: WriteTransaction) -> DocumentRow:
            docs = txn.documents()
            row = docs.lock(path)
            if row is None:
                if expected not in (None, 0):
                    raise ConflictError(f"{path} does not exist; expected revision {expected}", field="path",
                                        value=path)
                if docs.has_under(path):
                    raise ConflictError(f"File {path} already exists", field="path", value=path)
                check_parents(txn, path, f"Cannot create {path}")
                return self._commit(txn, None, path, content, op or "create", by, source=source,
                                    retention=retention or DEFAULT_RETENTION)
            if expected == 0:
                raise ConflictError(f"File {path} already exists", field="path", value=path)
            check_revision(row, expected)
            if source is not None:
                row.source = source
            if retention is not None:
                row.retention = retention
            return self._commit(txn, row, path, content, op or "write", by)

        return to_document(tenant, self._run(tenant, work))

    def str_replace(
        self, tenant: str, path: str, old: str, new: str, *, expected_revision: int | None = None,
        by: Provenance = ANONYMOUS,
    ) -> Edit:
        """Replace the one occurrence of ``old``; none or several change nothing."""
        path, by, expected = check_path(path), by.checked(), check_expected(expected_revision)
        old, new = check_content(old, "old_str"), check_content(new, "new_str")
        if old == "":
            raise tool_error("old_str", old, "No replacement was performed, old_str must not be empty.")

        def work(txn: WriteTransaction) -> tuple[DocumentRow, int]:
            row = lock_file(txn, path)
            check_revision(row, expected)
            updated, line = replace_once(row.content or "", old, new, path)
            return self._commit(txn, row, path, updated, "str_replace", by), line

        row, line = self._run(tenant, work)
        return Edit(to_document(tenant, row), line)

    def insert(
        self, tenant: str, path: str, line: int, text: str, *, expected_revision: int | None = None,
        by: Provenance = ANONYMOUS,
    ) -> Document:
        """Insert ``text`` as lines after line ``line`` (0: at the top; n: at the end)."""
        path, by, expected = check_path(path), by.checked(), check_expected(expected_revision)
        text = check_content(text, "insert_text")
        if isinstance(line, bool) or not isinstance(line, int):
            raise ValidationError("insert_line", line, "must be an integer")

        def work(txn: WriteTransaction) -> DocumentRow:
            row = lock_file(txn, path)
            check_revision(row, expected)
            return self._commit(txn, row, path, insert_at(row.content or "", line, text), "insert", by)

        return to_document(tenant, self._run(tenant, work))

    def delete(
        self, tenant: str, path: str, *, expected_revision: int | None = None, by: Provenance = ANONYMOUS,
    ) -> list[str]:
        """Delete a file, or a directory with everything below it; revisions are kept (see
        ``erase``). Returns the paths of the documents deleted."""
        path, by, expected = check_path(path), by.checked(), check_expected(expected_revision)
        if path == ROOT:
            raise tool_error("path", path, "Cannot delete the /memories directory itself")

        def work(txn: WriteTransaction) -> list[str]:
            docs = txn.documents()
            row = docs.lock(path)
            rows = [row] if row is not None else docs.lock_under(path)
            if not rows:
                raise NotFoundError(f"The path {path} does not exist", field="path", value=path)
            if row is not None:
                check_revision(row, expected)
            elif expected is not None:
                raise ValidationError("expected_revision", expected, f"{path} is a directory, which has no revision")
            for each in rows:
                self._commit(txn, each, each.path, None, "delete", by)
            return [each.path for each in rows]

        return self._run(tenant, work)

    def rename(
        self, tenant: str, old_path: str, new_path: str, *, expected_revision: int | None = None,
        by: Provenance = ANONYMOUS,
    ) -> list[tuple[str, str]]:
        """Move a file or a directory; the destination must not exist. Returns (old, new) per document."""
        old, by, expected = check_path(old_path, "old_path"), by.checked(), check_expected(expected_revision)
        new = check_path(new_path, "new_path")
        if old == ROOT:
            raise tool_error("old_path", old, "Cannot rename the /memories directory itself")
        if new == ROOT:
            raise ConflictError(f"The destination {new} already exists", field="new_path", value=new)

        def work(txn: WriteTransaction) -> list[tuple[str, str]]:
            docs = txn.documents()
            if docs.lock(new) is not None or docs.has_under(new):
                raise ConflictError(f"The destination {new} already exists", field="new_path", value=new)
            row = docs.lock(old)
            rows = [row] if row is not None else docs.lock_under(old)
            if not rows:
                raise NotFoundError(f"The path {old} does not exist", field="old_path", value=old)
            if row is not None:
                check_revision(row, expected)
            elif is_within(new, old):
                raise tool_error("new_path", new, f"Cannot move {old} into itself")
            check_parents(txn, new, f"Cannot move {old} to {new}")
            moved = [(each.path, new + each.path[len(old):]) for each in rows]
            # Each name below ``old`` is valid already and ``new`` is: only the rules on a
            # whole path (length, depth) can fail, so the longest and the deepest target
            # stand for all of them.
            for target in {max(moved, key=lambda pair: len(pair[1]))[1],
                           max(moved, key=lambda pair: pair[1].count("/"))[1]}:
                check_path(target, "new_path")
            if row is not None:
                self._commit(txn, row, new, row.content, "rename", by)
            else:
                docs.move_under(old, new, self._now(), by.author, by.episode, by.call)
            return moved

        return self._run(tenant, work)

    def restore(
        self, tenant: str, path: str, revision: int, *, expected_revision: int | None = None,
        by: Provenance = ANONYMOUS,
    ) -> Document:
        """Make the text of an earlier revision current again, as a new revision (a deleted
        document comes back at ``path``)."""
        path, by, expected = check_path(path), by.checked(), check_expected(expected_revision)
        number = revision_number(revision)

        def work(txn: WriteTransaction) -> DocumentRow:
            docs = txn.documents()
            row = docs.lock(path)
            if row is None:
                row = docs.last_deleted(path)
                if row is None:
                    raise not_found(path)
                if docs.has_under(path):
                    raise ConflictError(f"The destination {path} already exists", field="path", value=path)
                check_parents(txn, path, f"Cannot restore {path}")
            check_revision(row, expected)
            old = docs.revision(row.doc_id, number)
            if old is None:
                raise NotFoundError(f"{path} has no revision {number}", field="revision", value=number)
            if old.content is None:
                raise ValidationError("revision", number, "is a deletion; restore a revision that has text")
            return self._commit(txn, row, path, old.content, "restore", by)

        return to_document(tenant, self._run(tenant, work))

    def set_metadata(
        self, tenant: str, path: str, *, source: str | None = _UNSET, reviewed_at: datetime | str | None = _UNSET,
        retention: str = _UNSET,
    ) -> Document:
        """Change a document's source, last review or retention class (no new revision)."""
        path = check_path(path)
        changes: dict[str, Any] = {}
        if source is not _UNSET:
            changes["source"] = check_optional_name(source, "source")
        if reviewed_at is not _UNSET:
            changes["reviewed_at"] = None if reviewed_at is None else to_micros(parse_timestamp(reviewed_at,
                                                                                                "reviewed_at"))
        if retention is not _UNSET:
            changes["retention"] = check_retention(retention)

        def work(txn: WriteTransaction) -> DocumentRow:
            docs = txn.documents()
            row = docs.lock(path)
            if row is None:
                raise not_found(path)
            updated = replace(row, **changes)
            docs.update(updated)
            return updated

        return to_document(tenant, self._run(tenant, work))

    def erase(self, tenant: str, path: str) -> int:
        """Erase every document that ever had ``path`` (live or deleted): every revision,
        chunk and vector, as if never written; a content-free tombstone records it.
        Stored idempotent responses quoting a revision's path or text are emptied, as
        an episode's erasure empties those quoting it.
        Returns how many revisions were removed."""
        path = check_path(path)

        def work(txn: WriteTransaction) -> int:
            docs = txn.documents()
            doc_ids = docs.ever_at(path)
            if not doc_ids:
                raise not_found(path)
            quoted = [revision for doc_id in doc_ids for revision in docs.revisions(doc_id)]
            removed = docs.erase(doc_ids)
            self._reach().names_erased(txn, quoted_by(quoted), self._now())
            target = self._digests.of(txn.tenant, "document", path)
            txn.record_audit(AuditRow(self._now(), "erase_document", "erase", target, removed,
                                      json.dumps({"revisions": removed})))
            return removed

        removed = self._run(tenant, work)
        self.backend.purge_residue()
        return removed

    # helpers --------------------------------------------------------------------------

    def _read(self, tenant: str) -> AbstractContextManager[Reader]:
        if self._ledger is not None:
            return self._ledger.read(check_tenant(tenant), "documents")
        return self.backend.read(check_tenant(tenant))

    def _reach(self) -> Reach:
        """Who keeps copies an erasure of documents must reach: the ledger's participants,
        or, without a ledger, the stored responses alone."""
        return self._ledger.reach if self._ledger is not None else Reach(self._digests, (StoredResponses(),))

    def _settle(self, tenant: str) -> None:
        """Before a read that opens its own scopes (search): nothing past its deadline."""
        with self._read(tenant):
            pass

    def _run(self, tenant: str, work: Callable[[WriteTransaction], T]) -> T:
        """One unit of work, serialised with the tenant's other document writes."""
        check_tenant(tenant)

        def serialised(txn: WriteTransaction) -> T:
            txn.documents().begin()
            return work(txn)

        if self._ledger is not None:
            result = self._ledger.run_write(tenant, serialised, "documents")
        else:
            result = self.backend.run_write(tenant, serialised)
        try:
            self.index(tenant)
        except SgamError:
            pass  # the change stands; its chunks are embedded by the next change or index()
        return result

    def index(self, tenant: str) -> int:
        """Embed the tenant's document chunks that have no vector yet of the embedders its
        rows get one of (changes do it when they commit); how many were embedded."""
        from .search import index_vectors

        check_tenant(tenant)
        if self._ledger is None:
            return index_vectors(self.backend, () if self.embedder is None else (self.embedder,), tenant)
        search = self._ledger.search
        return index_vectors(self.backend, search.choice.for_writes(search.state(tenant)), tenant,
                             wanted=search.wanted_in)

    def _searching(self, tenant: str) -> Embedder | None:
        """The embedder the tenant's search uses, as this process saw it last."""
        return self.embedder if self._ledger is None else self._ledger.search.embedder_for(tenant)

    def _confirm(self) -> Callable[[Reader], Embedder | None] | None:
        return None if self._ledger is None else self._ledger.search.active_in

    def _commit(
        self, txn: WriteTransaction, row: DocumentRow | None, path: str, content: str | None, op: str,
        by: Provenance, *, source: str | None = None, retention: str = DEFAULT_RETENTION,
    ) -> DocumentRow:
        return commit(txn, row, path, content, op, by, self._now(), source=source, retention=retention)
