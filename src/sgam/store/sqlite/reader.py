"""SQLite reads: the tenant's reader and the one-snapshot scope every read runs in."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..._core.schema import AttributeSchema
from .._records import QueryFilter
from .._requests import ReadAhead
from .._sql.access import AccessReads
from .._sql.checkpoints import CheckpointAccess
from .._sql.dialect import SQLITE
from .._sql.extraction import ExtractionReads
from .._sql.ledger import LedgerReader
from .._sql.subjects import SubjectReads
from .cache import Cache, ConnectionMemory
from .errors import sgam_error
from .file import SQLiteFile
from .items import ItemReads
from .lanes import FileLanes
from .lifecycle import LifecycleReads
from .portable import SQLitePortableRows
from .session import SQLiteSession

if TYPE_CHECKING:
    from .documents import SQLiteDocuments


class SQLiteReader(
    LedgerReader, ExtractionReads, ItemReads, LifecycleReads, AccessReads, SubjectReads,
    CheckpointAccess,
):
    """Tenant-scoped reads (``Reader``); each is one indexed statement."""

    def __init__(self, conn: sqlite3.Connection, tenant: str, cache: Cache,
                 lanes: Callable[[], FileLanes | None] | None = None) -> None:
        super().__init__(SQLiteSession(conn), tenant)
        self._conn = conn
        self._cache = cache
        self._memory: ConnectionMemory = ConnectionMemory(cache)
        self._lanes = lanes

    def documents(self) -> SQLiteDocuments:
        from .documents import SQLiteDocuments

        return SQLiteDocuments(self._db, self.tenant)

    def portable(self) -> SQLitePortableRows:
        return SQLitePortableRows(self._db, self.tenant, self._cache, self._lanes)

    def prefetch(self, requests: Sequence[ReadAhead]) -> None:
        """Nothing to send ahead: a statement is a function call into the same process."""

    def declared(self, attribute: str) -> AttributeSchema | None:
        """From the connection's cache, as the write unit of work's ``attribute_schema``."""
        def load() -> AttributeSchema | None:
            found = self._attribute_schema_rows(attribute)
            return found[0] if found else None

        schema: AttributeSchema | None = self._memory.recall(("attribute", self.tenant, attribute), load)
        return schema

    def _query_source(self, flt: QueryFilter) -> tuple[str, str, list[str], list[Any]]:
        """Without a subject, a filter by memory type or by attribute walks the tenant's
        keys that have it (``ledger_key_types``, ``ledger_keys``: written once per key,
        not on every version), in subject order, then each key's versions."""
        if flt.subject is not None or (flt.memory_type is None and flt.attribute is None):
            return super()._query_source(flt)
        versions = "assertions_current" if flt.known_at is None else "assertions_by_key"
        if flt.memory_type is not None:
            key, keys, narrowing, params = "t", "ledger_key_types t", ["t.memory_type = ?"], [flt.memory_type]
        else:
            key, keys, narrowing, params = "k", "ledger_keys k INDEXED BY ledger_keys_by_attribute", [], []
        # ``+``: SQLite would otherwise carry a page's lower bound on the key's subject
        # over to the versions and seek them by that range instead of by the key.
        return (f"{keys} CROSS JOIN assertions a INDEXED BY {versions} ON a.tenant = {key}.tenant "
                f"AND a.subject = +{key}.subject AND a.attribute = {key}.attribute"), key, narrowing, params


class ReadScope(AbstractContextManager[SQLiteReader]):
    """A read holds the connection lock and one read transaction, so that every statement
    of the read sees one snapshot, the one the connection's cache was checked against
    (a class rather than ``@contextmanager``: reads are short and this is on every one).
    ``begin=False``: a read of one statement, which is its own snapshot, in autocommit;
    with no snapshot to check the connection's cache against, its reader has a cache of
    its own, empty.
    Driver errors are mapped on the way out."""

    __slots__ = ("_backend", "_begin", "_began", "_lanes", "_tenant")

    def __init__(self, backend: SQLiteFile, tenant: str, *, begin: bool = True) -> None:
        self._backend = backend
        self._tenant = tenant
        self._begin = begin
        self._began = False
        self._lanes: FileLanes | None = None

    def __enter__(self) -> SQLiteReader:
        backend = self._backend
        backend._lock.acquire()
        conn = backend._conn
        try:
            if not self._begin:
                return SQLiteReader(conn, self._tenant, {})
            if not conn.in_transaction:  # a read inside a unit of work shares its snapshot
                conn.execute(SQLITE.snapshot)
                self._began = True
            backend._check_data_version()
        except BaseException as exc:
            self._end()
            if isinstance(exc, sqlite3.Error):
                raise sgam_error(exc, backend.path) from exc
            raise
        return SQLiteReader(conn, self._tenant, backend._cache, self._file_lanes if self._began else None)

    def _file_lanes(self) -> FileLanes | None:
        """The read's lanes (``lanes.py``), opened on first use (perhaps none of them:
        their ``moved`` still says whether the read was begun again on a newer snapshot)
        and closed when the read ends; None for a store in memory (no file for another
        connection to open) or where the backend asks for none."""
        backend = self._backend
        if self._lanes is None:
            if not backend.export_lanes or backend._conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                return None
            self._lanes = FileLanes(backend.path, backend.export_lanes, self._begin_again)
        return self._lanes

    def _begin_again(self) -> bool:
        """The read's transaction ended and begun anew; whether on the snapshot it had (no
        other connection committed in between: ``PRAGMA data_version``)."""
        backend = self._backend
        seen = backend._data_version
        backend._conn.execute("COMMIT")
        backend._conn.execute(SQLITE.snapshot)
        backend._check_data_version()
        return backend._data_version == seen

    def _end(self) -> None:
        try:
            if self._lanes is not None:
                self._lanes.close()
        finally:
            try:
                if self._began and self._backend._conn.in_transaction:
                    self._backend._conn.execute("COMMIT")
            finally:
                self._backend._lock.release()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self._end()
        except sqlite3.Error as ended:
            if exc is None:
                raise sgam_error(ended, self._backend.path) from ended
        if isinstance(exc, sqlite3.Error):
            raise sgam_error(exc, self._backend.path) from exc
