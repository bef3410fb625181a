"""SQLite backend: WAL, ``BEGIN IMMEDIATE`` units of work, retries with backoff on busy."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ..._errors import BusyError, SchemaVersionError
from ..._rules import Operation, Plan, Version
from ..._schema import AttributeSchema, MemoryTypeSchema
from .._protocol import EpisodeRow, JobRow, QueryFilter, ResidueHit, timeline_clause
from .._rows import (
    ATTRIBUTE_SCHEMA_COLUMNS,
    EPISODE_COLUMNS,
    MEMORY_TYPE_COLUMNS,
    OPERATION_COLUMNS,
    VERSION_COLUMNS,
    attribute_schema_from_row,
    memory_type_from_row,
    operation_from_row,
    version_from_row,
)
from .._search import SearchIndex
from . import scan
from .errors import map_sqlite_errors, sgam_error
from .extraction import ExtractionReads, ExtractionWrites, claim_jobs, count_jobs
from .items import ItemReads, ItemWrites
from .lifecycle import LifecycleReads, LifecycleWrites, due_tenants
from .migrations import MIGRATIONS
from .residue import checkpoint, merge_full_text

if TYPE_CHECKING:
    from .documents import SQLiteDocuments

T = TypeVar("T")

_KEY = "tenant = ? AND subject = ? AND attribute = ?"
_VISIBLE = "recorded_from <= ? AND (recorded_to IS NULL OR recorded_to > ?)"






def _version_params(tenant: str, v: Version) -> tuple[Any, ...]:
    return (
        v.assertion_id, tenant, v.subject, v.attribute, v.value, v.memory_type, v.valid_from,
        v.valid_to, v.recorded_from, v.recorded_to, v.source, v.confidence, v.schema_version,
        v.supersedes, v.origin.value, v.closed_by,
    )


_INSERT_VERSION = (
    "INSERT INTO assertions (assertion_id, tenant, subject, attribute, value, memory_type, "
    "valid_from, valid_to, recorded_from, recorded_to, source, confidence, schema_version, "
    "supersedes, origin, closed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_FLOOR = (
    f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
    f"WHERE {_KEY} AND recorded_to IS NULL AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1"
)
_FLOOR_STRICT = _FLOOR.replace("valid_from <= ?", "valid_from < ?")
_FLOOR_KNOWN = (
    f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_by_key "
    f"WHERE {_KEY} AND valid_from <= ? AND {_VISIBLE} ORDER BY valid_from DESC LIMIT 1"
)
_CEILING = (
    f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
    f"WHERE {_KEY} AND recorded_to IS NULL AND valid_from > ? ORDER BY valid_from LIMIT 1"
)
_RETIRE_VERSION = "UPDATE assertions SET recorded_to = ? WHERE row_id = ?"
_DELETE_VERSION = "DELETE FROM assertions WHERE row_id = ?"


class _Key:
    """Index lookups over the current versions of one key (``KeyView``)."""

    __slots__ = ("_conn", "_params")

    def __init__(self, conn: sqlite3.Connection, tenant: str, subject: str, attribute: str) -> None:
        self._conn = conn
        self._params = (tenant, subject, attribute)

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        row = self._conn.execute(_FLOOR_STRICT if strict else _FLOOR, (*self._params, moment)).fetchone()
        return version_from_row(row) if row else None

    def ceiling(self, moment: int) -> Version | None:
        row = self._conn.execute(_CEILING, (*self._params, moment)).fetchone()
        return version_from_row(row) if row else None


class _Scoped:
    """Reads and writes shared by the reader and the write unit of work."""

    def __init__(self, conn: sqlite3.Connection, tenant: str) -> None:
        self._conn = conn
        self.tenant = tenant

    def episode(self, episode_id: str) -> EpisodeRow | None:
        row = self._conn.execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND episode_id = ?",
            (self.tenant, episode_id),
        ).fetchone()
        return EpisodeRow(*row) if row else None

    def operations(self, subject: str, attribute: str) -> list[Operation]:
        rows = self._conn.execute(
            f"SELECT {OPERATION_COLUMNS} FROM operations WHERE {_KEY} ORDER BY seq",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [operation_from_row(row) for row in rows]

    def _attribute_schema_rows(self, where: str, params: tuple[Any, ...]) -> list[AttributeSchema]:
        rows = self._conn.execute(
            f"SELECT {ATTRIBUTE_SCHEMA_COLUMNS} FROM attribute_schemas WHERE tenant = ? {where} "
            "ORDER BY attribute",
            (self.tenant, *params),
        ).fetchall()
        return [attribute_schema_from_row(row) for row in rows]

    def _memory_type_rows(self, where: str, params: tuple[Any, ...]) -> list[MemoryTypeSchema]:
        rows = self._conn.execute(
            f"SELECT {MEMORY_TYPE_COLUMNS} FROM memory_types WHERE tenant = ? {where} "
            "ORDER BY name",
            (self.tenant, *params),
        ).fetchall()
        return [memory_type_from_row(row) for row in rows]


_MISSING = object()
CACHE_LIMIT = 4096


class SQLiteWrite(_Scoped, ExtractionWrites, ItemWrites, LifecycleWrites):
    """One ``BEGIN IMMEDIATE`` unit of work for one tenant (``WriteTransaction``).

    Schema and episode lookups go through ``cache``, which the backend keeps across
    transactions of its connection and empties whenever another connection has committed
    (``PRAGMA data_version``) or a transaction rolls back; this transaction's own schema
    and episode changes update it as they happen.
    """

    def __init__(self, conn: sqlite3.Connection, tenant: str, cache: dict[tuple[str, str, str], Any]) -> None:
        super().__init__(conn, tenant)
        self._cache = cache

    def _remember(self, key: tuple[str, str, str], value: Any) -> None:
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = value

    def episode(self, episode_id: str) -> EpisodeRow | None:
        key = ("episode", self.tenant, episode_id)
        found = self._cache.get(key)
        if found is not None:
            assert isinstance(found, EpisodeRow)
            return found
        row = super().episode(episode_id)
        if row is not None:
            self._remember(key, row)
        return row

    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        """Nothing to do: a lookup is a function call into the same process."""

    def insert_episode(self, row: EpisodeRow) -> None:
        self._conn.execute(
            f"INSERT INTO episodes ({EPISODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.tenant, row.episode_id, row.occurred_at, row.recorded_at, row.text, row.speaker,
             row.kind, row.session, row.metadata, row.schema_version, row.retention, row.lost_at),
        )

    def delete_episode(self, episode_id: str) -> int:
        self._cache.pop(("episode", self.tenant, episode_id), None)
        return self._conn.execute(
            "DELETE FROM episodes WHERE tenant = ? AND episode_id = ?", (self.tenant, episode_id)
        ).rowcount

    def schema_version(self) -> int:
        key = ("schema_version", self.tenant, "")
        cached = self._cache.get(key)
        if cached is not None:
            assert isinstance(cached, int)
            return cached
        row = self._conn.execute(
            "SELECT version FROM tenant_schema WHERE tenant = ?", (self.tenant,)
        ).fetchone()
        version = int(row[0]) if row else 0
        self._remember(key, version)
        return version

    def bump_schema_version(self) -> int:
        row = self._conn.execute(
            "INSERT INTO tenant_schema (tenant, version) VALUES (?, 1) "
            "ON CONFLICT (tenant) DO UPDATE SET version = version + 1 RETURNING version",
            (self.tenant,),
        ).fetchone()
        self._remember(("schema_version", self.tenant, ""), int(row[0]))
        return int(row[0])

    def attribute_schema(self, attribute: str) -> AttributeSchema | None:
        key = ("attribute", self.tenant, attribute)
        cached = self._cache.get(key, _MISSING)
        if cached is not _MISSING:
            assert cached is None or isinstance(cached, AttributeSchema)
            return cached
        found = self._attribute_schema_rows("AND attribute = ?", (attribute,))
        self._remember(key, found[0] if found else None)
        return found[0] if found else None

    def put_attribute_schema(self, schema: AttributeSchema) -> None:
        self._cache.pop(("attribute", self.tenant, schema.attribute), None)
        self._conn.execute(
            "INSERT INTO attribute_schemas (tenant, attribute, value_type, memory_type, sensitive, "
            "description, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, attribute) DO UPDATE SET value_type = excluded.value_type, "
            "memory_type = excluded.memory_type, sensitive = excluded.sensitive, "
            "description = excluded.description, schema_version = excluded.schema_version",
            (self.tenant, schema.attribute, schema.value_type.value if schema.value_type else None,
             schema.memory_type, int(schema.sensitive), schema.description, schema.schema_version),
        )

    def memory_type(self, name: str) -> MemoryTypeSchema | None:
        key = ("memory_type", self.tenant, name)
        cached = self._cache.get(key, _MISSING)
        if cached is not _MISSING:
            assert cached is None or isinstance(cached, MemoryTypeSchema)
            return cached
        found = self._memory_type_rows("AND name = ?", (name,))
        self._remember(key, found[0] if found else None)
        return found[0] if found else None

    def put_memory_type(self, schema: MemoryTypeSchema) -> None:
        self._cache.pop(("memory_type", self.tenant, schema.name), None)
        self._conn.execute(
            "INSERT INTO memory_types (tenant, name, json_schema, schema_version) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (tenant, name) DO UPDATE SET json_schema = excluded.json_schema, "
            "schema_version = excluded.schema_version",
            (self.tenant, schema.name,
             json.dumps(schema.json_schema) if schema.json_schema is not None else None,
             schema.schema_version),
        )

    def current(self, subject: str, attribute: str) -> list[Version]:
        rows = self._conn.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
            f"WHERE {_KEY} AND recorded_to IS NULL ORDER BY valid_from",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [version_from_row(row) for row in rows]

    def retire(self, versions: list[Version], recorded_at: int) -> None:
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

    def lock_keys(self, keys: list[tuple[str, str]]) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds the whole database."""

    def document_store(self) -> SQLiteDocuments:
        """Document memory's tables, for erasure and expiry inside this unit of work."""
        from .documents import SQLiteDocuments

        return SQLiteDocuments()

    def prefetch_one(self, subject: str, attribute: str, moment: int, source: str) -> None:
        """Nothing to do: a lookup is a function call into the same process."""

    def key(self, subject: str, attribute: str) -> _Key:
        return _Key(self._conn, self.tenant, subject, attribute)

    def last_recorded_at(self, subject: str, attribute: str) -> int | None:
        row = self._conn.execute(
            f"SELECT recorded_at FROM operations WHERE {_KEY} ORDER BY seq DESC LIMIT 1",
            (self.tenant, subject, attribute),
        ).fetchone()
        return int(row[0]) if row else None

    def append_operation(self, op: Operation) -> int:
        cursor = self._conn.execute(
            "INSERT INTO operations (tenant, subject, attribute, kind, valid_at, value, source, "
            "recorded_at, memory_type, confidence, schema_version, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, op.subject, op.attribute, op.kind.value, op.valid_at, op.value, op.source,
             op.recorded_at, op.memory_type, op.confidence, op.schema_version, op.expires_at),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Batch insert; sequence numbers are assigned in order."""
        row = self._conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'operations'").fetchone()
        first = (row[0] if row else 0) + 1
        self._conn.executemany(
            "INSERT INTO operations (seq, tenant, subject, attribute, kind, valid_at, value, source, "
            "recorded_at, memory_type, confidence, schema_version, expires_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(first + i, self.tenant, op.subject, op.attribute, op.kind.value, op.valid_at, op.value,
              op.source, op.recorded_at, op.memory_type, op.confidence, op.schema_version, op.expires_at)
             for i, op in enumerate(ops)],
        )
        return list(range(first, first + len(ops)))

    def apply(self, plan: Plan, recorded_at: int) -> None:
        self.retire(plan.retire, recorded_at)
        if plan.add:
            self.insert_versions(plan.add)

    def insert_versions(self, versions: list[Version]) -> None:
        if len(versions) == 1:
            self._conn.execute(_INSERT_VERSION, _version_params(self.tenant, versions[0]))
        else:
            self._conn.executemany(_INSERT_VERSION, [_version_params(self.tenant, v) for v in versions])

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT DISTINCT attribute FROM operations WHERE tenant = ? AND subject = ?",
            (self.tenant, subject),
        ).fetchall()
        return [(subject, row[0]) for row in rows]

    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT DISTINCT subject, attribute FROM operations WHERE tenant = ? AND source = ?",
            (self.tenant, episode_id),
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def delete_operations_of_subject(self, subject: str) -> int:
        return self._conn.execute(
            "DELETE FROM operations WHERE tenant = ? AND subject = ?", (self.tenant, subject)
        ).rowcount

    def delete_operations_of_source(self, episode_id: str) -> int:
        return self._conn.execute(
            "DELETE FROM operations WHERE tenant = ? AND source = ?", (self.tenant, episode_id)
        ).rowcount

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        self._conn.execute(f"DELETE FROM assertions WHERE {_KEY}", (self.tenant, subject, attribute))
        if versions:
            self.insert_versions(versions)



class SQLiteReader(_Scoped, ExtractionReads, ItemReads, LifecycleReads):
    """Tenant-scoped reads (``Reader``); each is one indexed statement."""

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        if known_at is None:
            row = self._conn.execute(_FLOOR, (self.tenant, subject, attribute, at)).fetchone()
        else:
            row = self._conn.execute(
                _FLOOR_KNOWN, (self.tenant, subject, attribute, at, known_at, known_at)
            ).fetchone()
        if row is None:
            return None
        version = version_from_row(row)
        return version if version.holds_at(at) else None

    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        if known_at is None:
            sql = (f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
                   f"WHERE {_KEY} AND recorded_to IS NULL ORDER BY valid_from")
            params: tuple[Any, ...] = (self.tenant, subject, attribute)
        else:
            sql = (f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_by_key "
                   f"WHERE {_KEY} AND {_VISIBLE} ORDER BY valid_from")
            params = (self.tenant, subject, attribute, known_at, known_at)
        return [version_from_row(row) for row in self._conn.execute(sql, params)]

    def versions(self, subject: str, attribute: str) -> list[Version]:
        rows = self._conn.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} "
            "ORDER BY recorded_from, valid_from",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [version_from_row(row) for row in rows]

    def query(self, flt: QueryFilter) -> list[Version]:
        clauses = ["tenant = ?"]
        params: list[Any] = [self.tenant]
        for column, wanted in (("subject", flt.subject), ("memory_type", flt.memory_type)):
            if wanted is not None:
                clauses.append(f"{column} = ?")
                params.append(wanted)
        clause, values = timeline_clause(flt, "instr(attribute, char(31)) = 0", "substr(attribute, -?) = ?", "?")
        clauses.append(clause)
        params += values
        if flt.known_at is None:
            clauses.append("recorded_to IS NULL")
        else:
            clauses.append(_VISIBLE)
            params += [flt.known_at, flt.known_at]
        if flt.at is not None:
            clauses.append("valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)")
            params += [flt.at, flt.at]
        if flt.after is not None:
            clauses.append("(subject, attribute, valid_from) > (?, ?, ?)")
            params += list(flt.after)
        sql = (f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {' AND '.join(clauses)} "
               "ORDER BY subject, attribute, valid_from LIMIT ?")
        return [version_from_row(row) for row in self._conn.execute(sql, (*params, flt.limit))]

    def episodes(self, session: str | None, limit: int) -> list[EpisodeRow]:
        if session is None:
            sql = f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? ORDER BY seq LIMIT ?"
            params: tuple[Any, ...] = (self.tenant, limit)
        else:
            sql = (f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND session = ? "
                   "ORDER BY occurred_at, seq LIMIT ?")
            params = (self.tenant, session, limit)
        return [EpisodeRow(*row) for row in self._conn.execute(sql, params)]

    def attribute_schemas(self) -> list[AttributeSchema]:
        return self._attribute_schema_rows("", ())

    def memory_types(self) -> list[MemoryTypeSchema]:
        return self._memory_type_rows("", ())


class _ReadScope(AbstractContextManager[SQLiteReader]):
    """Holds the connection lock around a read and maps driver errors on the way out
    (a class rather than ``@contextmanager``: reads are short and this is on every one)."""

    __slots__ = ("_lock", "_path", "_reader")

    def __init__(self, lock: threading.RLock, reader: SQLiteReader, path: str) -> None:
        self._lock = lock
        self._reader = reader
        self._path = path

    def __enter__(self) -> SQLiteReader:
        self._lock.acquire()
        return self._reader

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.Error):
            raise sgam_error(exc, self._path) from exc


class SQLiteBackend:
    """One SQLite file in WAL mode; one connection per backend, serialised by a lock."""

    def __init__(self, path: str, *, busy_timeout: float = 5.0, retries: int = 10) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"
        self._retries = retries
        self._busy_timeout = busy_timeout
        self._residue: str | None = None
        self._lock = threading.RLock()
        self._cache: dict[tuple[str, str, str], Any] = {}
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
        self._setup()

    def _setup(self) -> None:
        def migrate(_: SQLiteWrite) -> None:
            conn = self._conn
            conn.execute(
                "CREATE TABLE IF NOT EXISTS sgam_migrations "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            current = conn.execute("SELECT coalesce(max(version), 0) FROM sgam_migrations").fetchone()[0]
            if current > len(MIGRATIONS):
                raise SchemaVersionError(
                    f"database {self.path} has schema version {current}; this sgam knows up to "
                    f"{len(MIGRATIONS)}. Upgrade sgam before using this database."
                )
            for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
                for statement in _split_script(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO sgam_migrations VALUES (?, datetime('now'))", (version,)
                )

        self.run_write("_", migrate)

    def schema_version(self) -> int:
        with self._lock, map_sqlite_errors(self.path):
            return int(self._conn.execute("SELECT max(version) FROM sgam_migrations").fetchone()[0])

    def run_write(self, tenant: str, work: Callable[[SQLiteWrite], T]) -> T:
        delay = 0.002
        for attempt in range(self._retries + 1):
            with self._lock:
                try:
                    with map_sqlite_errors(self.path):
                        return self._attempt(tenant, work)
                except BusyError:
                    if attempt == self._retries:
                        raise
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(self, tenant: str, work: Callable[[SQLiteWrite], T]) -> T:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            data_version = conn.execute("PRAGMA data_version").fetchone()[0]
            if data_version != self._data_version:  # another connection committed
                self._cache.clear()
                self._data_version = data_version
            result = work(SQLiteWrite(conn, tenant, self._cache))
            conn.execute("COMMIT")
        except BaseException:
            self._cache.clear()
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if self._residue is not None:  # an earlier erasure's WAL is still to be emptied
            self._retry_checkpoint()
        return result

    def _retry_checkpoint(self) -> None:
        """Try again, without waiting, to empty the WAL an erasure left behind; a failure
        here must not fail (or re-run) the write that has just committed."""
        try:
            self._residue = checkpoint(self._conn, 0.0, self._busy_timeout).residue()
        except sqlite3.Error:
            pass

    def read(self, tenant: str) -> _ReadScope:
        return _ReadScope(self._lock, SQLiteReader(self._conn, tenant), self.path)

    def purge_residue(self, wait: float = 1.0) -> str | None:
        """After an erasure, remove the copies SQLite keeps outside live rows (see
        ``residue``): merge the full-text indexes, then empty the WAL, waiting up to
        ``wait`` seconds for readers of older snapshots. Returns None when nothing is
        left, else what remains and why; later writes retry until the WAL is emptied."""
        self.run_write("_", lambda _: merge_full_text(self._conn))
        with self._lock, map_sqlite_errors(self.path):
            self._residue = checkpoint(self._conn, wait, self._busy_timeout).residue()
            return self._residue

    def close(self) -> None:
        with self._lock:
            if self._residue is not None:  # a last try at the WAL an erasure left behind
                self._retry_checkpoint()
            self._conn.close()

    def document_store(self) -> SQLiteDocuments:
        """Document memory's tables in the same file, under the same lock."""
        from .documents import SQLiteDocuments

        return SQLiteDocuments()

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

    def residue(self, tenant: str, needles: Sequence[str]) -> list[ResidueHit]:
        with self._lock, map_sqlite_errors():
            hits = scan.scan_tables(self._conn, tenant, needles)
        return hits + scan.scan_files(self.path, needles)


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
