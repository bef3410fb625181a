"""SQLite backend: WAL, ``BEGIN IMMEDIATE`` units of work, retries with backoff on busy."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..._core.errors import BusyError
from ..._core.rules import KeyView, Operation, Version
from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .._acting import mark_acted
from .._context import NO_CONTEXT, Attempt, CallContext
from .._migration_checksums import checksum, verify
from .._records import EpisodeRow, JobRow, ResidueScan
from .._requests import OneFactWrite
from .._rows import version_columns_of, version_from_row
from .._sql.access import AccessWrites
from .._sql.checkpoints import CheckpointAccess
from .._sql.dialect import SQLITE
from .._sql.extraction import ExtractionWrites
from .._sql.keystate import KeyStates
from .._sql.lanes import LANES, check_lanes
from .._sql.ledger import NEAR, near_from_rows
from .._sql.ledger_writes import LedgerWrites
from .._sql.subjects import SubjectWrites
from ..contract.search import SearchIndex
from . import scan
from .cache import Cache, ConnectionMemory, watch
from .errors import map_sqlite_errors
from .extraction import claim_jobs, count_jobs
from .fulltext import flush, merge_dirty
from .items import ItemWrites
from .lifecycle import LifecycleWrites, due_tenants
from .migrations import MIGRATIONS
from .portable import SQLitePortableRows
from .reader import ReadScope
from .residue import checkpoint
from .session import SQLiteSession

if TYPE_CHECKING:
    from .documents import SQLiteDocuments

T = TypeVar("T")

_INSERT_VERSION = (
    "INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, "
    "valid_from, valid_to, recorded_from, recorded_to, source, confidence, schema_version, "
    "supersedes, origin, closed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_RETIRE_VERSION = "UPDATE assertions SET recorded_to = ? WHERE row_id = ?"
# A batch's keys arrive as one JSON array of [subject, attribute] pairs: one statement
# loads every key's last change, one every key's current versions.
_PAIR = "json_extract(k.value, '$[0]') AS s, json_extract(k.value, '$[1]') AS a"
_LAST_OF_KEYS = (
    "SELECT s, a, (SELECT recorded_at FROM operations o INDEXED BY operations_by_key WHERE o.tenant = ? "
    f"AND o.subject = s AND o.attribute = a ORDER BY o.seq DESC LIMIT 1) FROM (SELECT {_PAIR} FROM json_each(?) k)"
)
# What a one-operation unit of work looks up about its key, in one statement: ``NEAR``
# (side 0 and 1) and the key's last change (side 2, in the second column).
_KEY_STATE = (
    f"{NEAR} UNION ALL SELECT * FROM (SELECT 2, recorded_at{', NULL' * 15} FROM operations "
    "INDEXED BY operations_by_key WHERE tenant = ? AND subject = ? AND attribute = ? ORDER BY seq DESC LIMIT 1) AS l"
)
_VERSION_OF_V = version_columns_of("v")
_CURRENT_OF_KEYS = (
    f"SELECT {_VERSION_OF_V} "
    f"FROM (SELECT {_PAIR} FROM json_each(?) k) AS keys CROSS JOIN assertions v INDEXED BY assertions_current "
    "ON v.tenant = ? AND v.subject = keys.s AND v.attribute = keys.a AND v.recorded_to IS NULL "
    "ORDER BY v.subject, v.attribute, v.valid_from"
)
# The same for a batch that names, per key, the earliest instant it will look up ([subject,
# attribute, instant] triples): only the versions from the second one starting at or before
# that instant on, which is all the rules can ask about at that instant or later.
_WINDOW_OF_KEYS = (
    f"SELECT {_VERSION_OF_V} "
    f"FROM (SELECT {_PAIR}, json_extract(k.value, '$[2]') AS m FROM json_each(?) k) AS keys "
    "CROSS JOIN assertions v INDEXED BY assertions_current "
    "ON v.tenant = ? AND v.subject = keys.s AND v.attribute = keys.a AND v.recorded_to IS NULL "
    "AND v.valid_from >= coalesce((SELECT f.valid_from FROM assertions f INDEXED BY assertions_current "
    "WHERE f.tenant = v.tenant AND f.subject = keys.s AND f.attribute = keys.a AND f.recorded_to IS NULL "
    "AND f.valid_from <= keys.m ORDER BY f.valid_from DESC LIMIT 1 OFFSET 1), -9223372036854775808) "
    "ORDER BY v.subject, v.attribute, v.valid_from"
)
_DELETE_VERSION = "DELETE FROM assertions WHERE row_id = ?"


def _version_params(tenant: str, v: Version) -> tuple[Any, ...]:
    return (
        v.assertion_id, tenant, v.subject, v.attribute, v.value, v.memory_type, v.valid_from,
        v.valid_to, v.recorded_from, v.recorded_to, v.source, v.confidence, v.schema_version,
        v.supersedes, v.origin.value, v.closed_by,
    )


class SQLiteWrite(
    LedgerWrites, ExtractionWrites, ItemWrites, LifecycleWrites, AccessWrites, SubjectWrites,
    CheckpointAccess,
):
    """One ``BEGIN IMMEDIATE`` unit of work for one tenant (``WriteTransaction``).

    Schema and episode lookups go through ``cache``, which the backend keeps across
    transactions of its connection and empties whenever another connection has committed
    (``PRAGMA data_version``) or a transaction rolls back; this transaction's own schema
    and episode changes update it as they happen.
    """

    acting_for: Attempt | None = None

    def __init__(self, conn: sqlite3.Connection, tenant: str, cache: Cache) -> None:
        super().__init__(SQLiteSession(conn), tenant)
        self._conn = conn
        self._cache = cache
        self._memory: ConnectionMemory = ConnectionMemory(cache)
        self._keys = KeyStates()

    def episode(self, episode_id: str) -> EpisodeRow | None:
        key = ("episode", self.tenant, episode_id)
        found = self._cache.get(key)
        if found is not None:
            assert isinstance(found, EpisodeRow)
            return found
        row = super().episode(episode_id)
        if row is not None:
            self._memory.remember(key, row)
        return row

    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        """Nothing to do: a lookup is a function call into the same process."""

    def delete_episode(self, episode_id: str) -> int:
        self._memory.forget(("episode", self.tenant, episode_id))
        return super().delete_episode(episode_id)

    def schema_version(self) -> int:
        version: int = self._memory.recall(("schema_version", self.tenant, ""), self._stored_schema_version)
        return version

    def bump_schema_version(self) -> int:
        version = super().bump_schema_version()
        self._memory.remember(("schema_version", self.tenant, ""), version)
        return version

    def attribute_schema(self, attribute: str) -> AttributeSchema | None:
        def load() -> AttributeSchema | None:
            found = self._attribute_schema_rows(attribute)
            return found[0] if found else None

        schema: AttributeSchema | None = self._memory.recall(("attribute", self.tenant, attribute), load)
        return schema

    def put_attribute_schema(self, schema: AttributeSchema) -> None:
        self._memory.forget(("attribute", self.tenant, schema.attribute))
        super().put_attribute_schema(schema)

    def note_spellings(self, spellings: Sequence[tuple[str, str]]) -> None:
        """A subject whose first spelling this connection has already seen stored asks
        nothing again (the cache empties on rollback and on another connection's commit)."""
        fresh = [(subject, spelling) for subject, spelling in spellings
                 if not self._memory.holds(("named", self.tenant, subject))]
        if fresh:
            super().note_spellings(fresh)
            for subject, _ in fresh:
                self._memory.remember(("named", self.tenant, subject), True)

    def delete_names_of_subject(self, subject: str) -> int:
        self._memory.forget(("named", self.tenant, subject))
        return super().delete_names_of_subject(subject)

    def memory_type(self, name: str) -> MemoryTypeSchema | None:
        def load() -> MemoryTypeSchema | None:
            found = self._memory_type_rows("AND name = ?", (name,))
            return found[0] if found else None

        schema: MemoryTypeSchema | None = self._memory.recall(("memory_type", self.tenant, name), load)
        return schema

    def put_memory_type(self, schema: MemoryTypeSchema) -> None:
        self._memory.forget(("memory_type", self.tenant, schema.name))
        super().put_memory_type(schema)

    def retire(self, versions: list[Version], recorded_at: int) -> None:
        self._keys.versions_changed(versions)
        if len(versions) == 1:
            version = versions[0]
            if version.recorded_from == recorded_at:
                self._conn.execute(_DELETE_VERSION, (version.row_id,))
            else:
                self._conn.execute(_RETIRE_VERSION, (recorded_at, version.row_id))
            return
        deleted = [(v.row_id,) for v in versions if v.recorded_from == recorded_at]
        retired = [(recorded_at, v.row_id) for v in versions if v.recorded_from != recorded_at]
        if deleted:
            self._conn.executemany(_DELETE_VERSION, deleted)
        if retired:
            self._conn.executemany(_RETIRE_VERSION, retired)

    def delete_operations(self, seqs: Sequence[int]) -> int:
        self._keys.operations_erased()
        return super().delete_operations(seqs)

    def delete_operations_of_subject(self, subject: str) -> int:
        self._keys.operations_erased()
        return super().delete_operations_of_subject(subject)

    def delete_operations_of_source(self, episode_id: str) -> int:
        self._keys.operations_erased()
        return super().delete_operations_of_source(episode_id)

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        self._keys.key_changed((subject, attribute))
        super().replace_versions(subject, attribute, versions)

    def lock_keys(self, keys: list[tuple[str, str]], since: list[int] | None = None) -> None:
        """``BEGIN IMMEDIATE`` already holds the whole database: load every key's last
        change and current versions (from ``since`` on) in two statements instead of two
        per key."""
        pairs = json.dumps(keys)
        last = self._conn.execute(_LAST_OF_KEYS, (self.tenant, pairs)).fetchall()
        if since is None:
            rows = self._conn.execute(_CURRENT_OF_KEYS, (pairs, self.tenant))
        else:
            triples = json.dumps([(s, a, m) for (s, a), m in zip(keys, since, strict=True)])
            rows = self._conn.execute(_WINDOW_OF_KEYS, (triples, self.tenant))
        self._keys.loaded(keys, last, (version_from_row(row) for row in rows))

    def last_recorded_at(self, subject: str, attribute: str) -> int | None:
        return self._keys.last((subject, attribute), lambda: super(SQLiteWrite, self).last_recorded_at(
            subject, attribute))

    def current(self, subject: str, attribute: str) -> list[Version]:
        loaded = self._keys.take_current((subject, attribute))
        return loaded if loaded is not None else super().current(subject, attribute)

    def append_operation(self, op: Operation) -> int:
        self._keys.appended((op.subject, op.attribute))
        return super().append_operation(op)

    def documents(self) -> SQLiteDocuments:
        from .documents import SQLiteDocuments

        return SQLiteDocuments(self._db, self.tenant)

    def portable(self) -> SQLitePortableRows:
        return SQLitePortableRows(self._db, self.tenant, self._cache)

    def prefetch_one(self, request: OneFactWrite) -> None:
        """The key's versions around the request's instant and its last change in one
        statement (the schema and the source come from the cache)."""
        moment = request.moment
        key = (self.tenant, request.subject, request.attribute)
        rows = self._conn.execute(_KEY_STATE, (*key, moment, *key, moment, *key)).fetchall()
        self._keys.noted((request.subject, request.attribute), moment,
                         near_from_rows([r for r in rows if r[0] != 2]), next((r[1] for r in rows if r[0] == 2), None))

    def key(self, subject: str, attribute: str) -> KeyView:
        """From the current versions ``lock_keys`` loaded if it did, else index lookups."""
        return self._keys.view(self._db, self.tenant, (subject, attribute))

    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Batch insert; sequence numbers are assigned in order."""
        for op in ops:
            self._keys.appended((op.subject, op.attribute))
        first = self.draw_operation_numbers(len(ops))[0] if ops else 1
        self._conn.executemany(
            "INSERT INTO operations (seq, tenant, subject, attribute, kind, valid_at, value, source, "
            "recorded_at, memory_type, confidence, schema_version, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + i, self.tenant, op.subject, op.attribute, op.kind.value, op.valid_at, op.value,
              op.source, op.recorded_at, op.memory_type, op.confidence, op.schema_version, op.expires_at)
             for i, op in enumerate(ops)],
        )
        return list(range(first, first + len(ops)))

    def insert_versions(self, versions: list[Version]) -> None:
        self._keys.versions_changed(versions)
        if len(versions) == 1:
            self._conn.execute(_INSERT_VERSION, _version_params(self.tenant, versions[0]))
        else:
            self._conn.executemany(_INSERT_VERSION, [_version_params(self.tenant, v) for v in versions])


_QUEUED = "SELECT 1 FROM full_text_queue LIMIT 1"
"""Whether this unit of work changed a row that a partitioned full-text index holds."""


class SQLiteBackend:
    """One SQLite file in WAL mode; one connection per backend, serialised by a lock."""

    checks_keys = False
    """A key's row is read before the call: in process, it costs no round trip."""

    def __init__(self, path: str, *, busy_timeout: float = 5.0, retries: int = 10,
                 export_lanes: int = LANES) -> None:
        self.export_lanes = check_lanes(export_lanes)
        """Processes an export's read builds its lines on besides the backend's connection,
        each with a connection of its own (``lanes.py``): about as many as the machine has
        cores to spare; 0 builds them on the backend's connection alone."""
        self.path = path
        self.url = f"sqlite:///{path}"
        self._retries = retries
        self._busy_timeout = busy_timeout
        self._residue: str | None = None
        self._lock = threading.RLock()
        self._cache: Cache = {}
        self._data_version = -1
        with map_sqlite_errors(self.path):
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=busy_timeout
            )
            # wal_autocheckpoint: a write transaction dirties about a dozen pages (the
            # operation log, the assertion table and their indexes), several of them the
            # same hot pages every time (table tails, interior pages). Checkpointing every
            # 16k WAL frames instead of SQLite's 1k copies each hot page back once per
            # checkpoint rather than ~16 times and pays the checkpoint's fsync 16 times
            # less often; the WAL file stays bounded at about 64 MB.
            for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON",
                           "secure_delete = ON", "temp_store = MEMORY", "cache_size = -65536",
                           "wal_autocheckpoint = 16384"):
                self._conn.execute(f"PRAGMA {pragma}")
        try:
            self._setup()
        except BaseException:  # a database this sgam refuses (too new, an edited migration): nothing stays open
            self._conn.close()
            raise

    def _setup(self) -> None:
        def migrate(_: SQLiteWrite) -> None:
            conn = self._conn
            conn.execute(
                "CREATE TABLE IF NOT EXISTS sgam_migrations "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL, checksum TEXT)"
            )
            current = conn.execute("SELECT coalesce(max(version), 0) FROM sgam_migrations").fetchone()[0]
            MIGRATIONS.check(current, self.path)
            verify(conn.execute("SELECT version, checksum FROM sgam_migrations").fetchall(), MIGRATIONS, self.path)
            for version, script in MIGRATIONS.pending(current):
                for statement in _split_script(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO sgam_migrations (version, applied_at, checksum) VALUES (?, datetime('now'), ?)",
                    (version, checksum(script)),
                )

        self.run_write("_", migrate)
        with map_sqlite_errors(self.path):
            watch(self._conn, self._cache)

    def schema_version(self) -> int:
        with self._lock, map_sqlite_errors(self.path):
            return int(self._conn.execute("SELECT max(version) FROM sgam_migrations").fetchone()[0])

    def run_write(
        self, tenant: str, work: Callable[[SQLiteWrite], T], context: CallContext = NO_CONTEXT,
    ) -> T:
        delay = 0.002
        for attempt in range(self._retries + 1):
            with self._lock:
                try:
                    with map_sqlite_errors(self.path):
                        return self._attempt(tenant, work, context)
                except BusyError:
                    if attempt == self._retries:
                        raise
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(self, tenant: str, work: Callable[[SQLiteWrite], T], context: CallContext) -> T:
        conn = self._conn
        conn.execute(SQLITE.begin)  # the file's write lock, taken when the unit of work begins
        try:
            self._check_data_version()
            txn = SQLiteWrite(conn, tenant, self._cache)
            txn.acting_for = context.acting_for(tenant)
            result = work(txn)
            mark_acted(txn)
            if conn.execute(_QUEUED).fetchone() is not None:
                flush(conn)
            conn.execute("COMMIT")
        except BaseException:
            self._cache.clear()
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if self._residue is not None:  # an earlier erasure's WAL is still to be emptied
            self._retry_checkpoint()
        return result

    def _check_data_version(self) -> None:
        """Inside a transaction: forget what the cache holds if another connection has
        committed since it was last checked."""
        data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if data_version != self._data_version:
            self._cache.clear()
            self._data_version = data_version

    def _retry_checkpoint(self) -> None:
        """Try again, without waiting, to empty the WAL an erasure left behind; a failure
        here must not fail (or re-run) the write that has just committed."""
        try:
            self._residue = checkpoint(self._conn, 0.0, self._busy_timeout).residue()
        except sqlite3.Error:
            pass

    def checkpoint_writer(self, tenant: str, context: CallContext = NO_CONTEXT) -> None:
        """None: a put in a unit of work is already function calls into this process."""
        return None

    def read(self, tenant: str, context: CallContext = NO_CONTEXT) -> ReadScope:
        return ReadScope(self, tenant)

    def read_one(self, tenant: str, context: CallContext = NO_CONTEXT) -> ReadScope:
        """Under the connection lock, in autocommit: no ``BEGIN`` and ``COMMIT`` around the
        one statement."""
        return ReadScope(self, tenant, begin=False)

    def check_key(self, context: CallContext) -> None:
        """Nothing: a surface reads a call's key before the call (``checks_keys`` is false)."""

    def purge_residue(self, wait: float = 1.0) -> str | None:
        """After an erasure, remove the copies SQLite keeps outside live rows (see
        ``residue``): merge the full-text indexes that lost rows, then empty the WAL,
        waiting up to ``wait`` seconds for readers of older snapshots. Returns None when
        nothing is left, else what remains and why; later writes retry until the WAL is
        emptied."""
        self.run_write("_", lambda _: merge_dirty(self._conn))
        with self._lock, map_sqlite_errors(self.path):
            self._residue = checkpoint(self._conn, wait, self._busy_timeout).residue()
            return self._residue

    def close(self) -> None:
        with self._lock:
            if self._residue is not None:  # a last try at the WAL an erasure left behind
                self._retry_checkpoint()
            self._conn.close()

    def search_index(self) -> SearchIndex:
        """FTS5 and vector tables in the same file, under the same lock."""
        from .search import SQLiteSearch

        return SQLiteSearch(self)

    def claim_jobs(self, owner: str, now: int, lease_until: int, limit: int, tenant: str | None) -> list[JobRow]:
        return self.run_write("_", lambda _: claim_jobs(self._conn, owner, now, lease_until, limit, tenant))

    def count_jobs(self, now: int, tenant: str | None) -> int:
        with self._lock, map_sqlite_errors(self.path):
            return count_jobs(self._conn, now, tenant)

    def due_tenants(self, now: int) -> list[str]:
        with self._lock, map_sqlite_errors():
            return due_tenants(self._conn, now)

    def residue(self, tenant: str, needles: Sequence[str]) -> ResidueScan:
        with self._lock, map_sqlite_errors(self.path):
            return scan.scan(self._conn, self.path, tenant, needles)


def _split_script(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
