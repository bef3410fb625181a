"""PostgreSQL backend: psycopg 3 with a connection pool, row-level security by tenant.

Each unit of work is one READ COMMITTED transaction that first sets ``sgam.tenant``
(``set_config(..., true)``: transaction-local, a bound parameter) so RLS admits only that
tenant's rows. Writers serialise per (tenant, subject) on transaction-level advisory
locks, taken the first time the unit of work touches a subject: the rules read a key,
then change it, and the lock makes that read-then-write atomic without SERIALIZABLE's
false conflicts between unrelated keys (and its retries under load). Locking by subject,
not by key, also covers ``forget_subject``, which must see every key of the subject.
Erasing an episode locks the episode row ``FOR UPDATE``, which waits for and then blocks
writers citing it (their foreign-key check takes ``KEY SHARE``).

Deadlock-free ordering: a unit of work that needs a second subject lock only *tries* it;
if it is taken, the transaction rolls back and re-runs holding every subject it needed,
acquired up front in lock-key order. Deadlocks PostgreSQL still detects (row locks),
serialisation failures and integrity races are retried with backoff; ``BusyError`` only
after the last retry.

A unit of work runs in pipeline mode (only reads whose rows the rules need wait for a
round trip) with server-side prepared statements from the first execution: a one-fact
write is about ten short statements, and planning each every time halved throughput.
Retirements are queued and sent as one UPDATE (and one DELETE) before anything reads or
inserts versions, so a batch touching a thousand keys does not send a thousand UPDATEs.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg_pool import ConnectionPool

from ..._errors import StoreError
from ..._rules import KeyTimeline, KeyView, Operation, Plan, Version
from ..._schema import AttributeSchema, MemoryTypeSchema
from ..._values import check_tenant
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
from . import scan
from .adapters import Micros, MicrosArray, configure
from .connect import connect
from .connect import options as connect_options
from .errors import is_retryable, map_postgres_errors, to_sgam
from .extraction import ExtractionReads, ExtractionWrites, claim_jobs, count_jobs
from .install import check_not_newer, installed_version, migrate
from .items import ItemReads, ItemWrites
from .lifecycle import LifecycleReads, LifecycleWrites, due_tenants
from .migrations import MIGRATIONS, TENANT_TABLES
from .security import check_safe

if TYPE_CHECKING:
    from .documents import PostgresDocuments
    from .search import PostgresSearchIndex

T = TypeVar("T")
Cursor = psycopg.Cursor[tuple[Any, ...]]

_KEY = "tenant = %s AND subject = %s AND attribute = %s"
_VISIBLE = "recorded_from <= %s AND (recorded_to IS NULL OR recorded_to > %s)"
_INSERT_VERSIONS = (
    "INSERT INTO assertions (tenant, assertion_id, subject, attribute, value, memory_type, "
    "valid_from, valid_to, recorded_from, recorded_to, source, confidence, schema_version, "
    "supersedes, origin, closed_by) "
    "SELECT %s, * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[], "
    "%s::timestamptz[], %s::timestamptz[], %s::timestamptz[], %s::timestamptz[], %s::text[], "
    "%s::float8[], %s::int[], %s::bigint[], %s::text[], %s::text[])"
)
_INSERT_OPERATION = (
    "INSERT INTO operations (tenant, seq, subject, attribute, kind, valid_at, value, source, "
    "recorded_at, memory_type, confidence, schema_version, expires_at) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_LAST_RECORDED = f"SELECT recorded_at FROM operations WHERE {_KEY} ORDER BY seq DESC LIMIT 1"
_NEXT_SEQ = "SELECT nextval(pg_get_serial_sequence('operations', 'seq'))"
# The two current versions starting last at or before an instant (a strict floor is one of
# them) and the first after it: every lookup the rules make for one operation.
_NEAR = (
    f"(SELECT 0, {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
    "AND valid_from <= %s ORDER BY valid_from DESC LIMIT 2) UNION ALL "
    f"(SELECT 1, {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
    "AND valid_from > %s ORDER BY valid_from LIMIT 1)"
)
_INSERT_OPERATIONS = (
    "INSERT INTO operations (tenant, seq, subject, attribute, kind, valid_at, value, source, "
    "recorded_at, memory_type, confidence, schema_version, expires_at) "
    "SELECT %s, * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::timestamptz[], "
    "%s::text[], %s::text[], %s::timestamptz[], %s::text[], %s::float8[], %s::int[], %s::timestamptz[])"
)




def lock_key(tenant: str, subject: str) -> int:
    """The advisory lock id of (tenant, subject): a stable signed 64-bit hash."""
    digest = hashlib.blake2b(f"{tenant}\x1f{subject}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class LockOrderError(Exception):
    """Internal: a second subject lock was taken by someone else; re-run holding all."""

    def __init__(self, keys: list[int]) -> None:
        super().__init__("subject lock taken out of order")
        self.keys = keys


Near = tuple[int, list[Version], Version | None]
"""Prefetched around an instant: (instant, up to two floors latest first, the ceiling)."""


class _Key:
    """Index lookups over the current versions of one key (``KeyView``), answered from the
    rows ``prefetch_one`` brought when they are about the instant it named."""

    __slots__ = ("_cur", "_near", "_params")

    def __init__(self, cur: Cursor, tenant: str, subject: str, attribute: str, near: Near | None = None) -> None:
        self._cur = cur
        self._params = (tenant, subject, attribute)
        self._near = near

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        if self._near is not None and self._near[0] == moment:
            return next((v for v in self._near[1] if not strict or v.valid_from < moment), None)
        op = "<" if strict else "<="
        row = self._cur.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
            f"AND valid_from {op} %s ORDER BY valid_from DESC LIMIT 1",
            (*self._params, Micros(moment)),
        ).fetchone()
        return version_from_row(row) if row else None

    def ceiling(self, moment: int) -> Version | None:
        if self._near is not None and self._near[0] == moment:
            return self._near[2]
        row = self._cur.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
            "AND valid_from > %s ORDER BY valid_from LIMIT 1",
            (*self._params, Micros(moment)),
        ).fetchone()
        return version_from_row(row) if row else None


class _Scoped:
    """Reads shared by the reader and the write unit of work."""

    def __init__(self, cur: Cursor, tenant: str) -> None:
        self._cur = cur
        self.tenant = tenant

    def episode(self, episode_id: str) -> EpisodeRow | None:
        row = self._cur.execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND episode_id = %s",
            (self.tenant, episode_id),
        ).fetchone()
        return EpisodeRow(*row) if row else None

    def operations(self, subject: str, attribute: str) -> list[Operation]:
        rows = self._cur.execute(
            f"SELECT {OPERATION_COLUMNS} FROM operations WHERE {_KEY} ORDER BY seq",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [operation_from_row(row) for row in rows]

    def _attribute_schema_rows(self, where: str, params: tuple[Any, ...]) -> list[AttributeSchema]:
        rows = self._cur.execute(
            f"SELECT {ATTRIBUTE_SCHEMA_COLUMNS} FROM attribute_schemas WHERE tenant = %s {where} "
            "ORDER BY attribute",
            (self.tenant, *params),
        ).fetchall()
        return [attribute_schema_from_row(row) for row in rows]

    def _memory_type_rows(self, where: str, params: tuple[Any, ...]) -> list[MemoryTypeSchema]:
        rows = self._cur.execute(
            f"SELECT {MEMORY_TYPE_COLUMNS} FROM memory_types WHERE tenant = %s {where} "
            "ORDER BY name",
            (self.tenant, *params),
        ).fetchall()
        return [memory_type_from_row(row) for row in rows]


SchemaCache = dict[str, tuple[int, dict[str, AttributeSchema | None], dict[str, MemoryTypeSchema | None]]]
"""Per tenant: a schema version and the attribute schemas and memory types read at it.
Every schema change bumps the tenant's version in its own transaction, so entries read at
the version a transaction sees are still right for it; a transaction that changes the
schema neither reads nor fills the cache."""


class PostgresWrite(_Scoped, ExtractionWrites, ItemWrites, LifecycleWrites):
    """One READ COMMITTED unit of work for one tenant (``WriteTransaction``)."""

    def __init__(self, cur: Cursor, tenant: str, prelock: list[int], schemas: SchemaCache | None = None) -> None:
        super().__init__(cur, tenant)
        self._schemas: SchemaCache = {} if schemas is None else schemas
        self._version: int | None = None
        self._schema_changed = False
        self._near: dict[tuple[str, str], Near] = {}
        self._seqs: list[int] = []
        self._held: set[int] = set()
        self._episodes: dict[str, EpisodeRow | None] = {}
        self._attributes: dict[str, AttributeSchema | None] = {}
        self._types: dict[str, MemoryTypeSchema | None] = {}
        self._last: dict[tuple[str, str], int | None] = {}
        self._current: dict[tuple[str, str], list[Version]] = {}
        self._drop: list[int] = []
        self._close: dict[int, list[int]] = {}
        self._subjects: set[str] = set()
        if prelock:
            self._acquire(prelock, wait=True)

    # locking --------------------------------------------------------------------------

    def _acquire(self, keys: list[int], *, wait: bool) -> bool:
        """Take ``keys`` in ascending order in one statement: waiting for each, or only
        trying (then False if any is held elsewhere; those taken stay until rollback)."""
        if wait:
            self._cur.execute(
                "SELECT pg_advisory_xact_lock(k) FROM unnest(%s::bigint[]) AS k ORDER BY k", (keys,)
            )
        else:
            row = self._cur.execute(
                "SELECT bool_and(pg_try_advisory_xact_lock(k)) FROM unnest(%s::bigint[]) AS k", (keys,)
            ).fetchone()
            if not row or not row[0]:
                return False
        self._held.update(keys)
        return True

    def _lock(self, subjects: Iterable[str]) -> None:
        """Hold the advisory locks of ``subjects``; wait only while holding none."""
        new = {s for s in subjects if s not in self._subjects}
        if not new:
            return
        self._subjects |= new
        wanted = sorted({lock_key(self.tenant, s) for s in new} - self._held)
        if wanted and not self._acquire(wanted, wait=not self._held):
            raise LockOrderError(sorted(self._held | set(wanted)))

    # episodes and schema: looked up once per unit of work (a batch asks per fact) -------

    def episode(self, episode_id: str) -> EpisodeRow | None:
        if episode_id not in self._episodes:
            self._episodes[episode_id] = super().episode(episode_id)
        return self._episodes[episode_id]

    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        wanted = [i for i in dict.fromkeys(episode_ids) if i not in self._episodes]
        if not wanted:
            return
        rows = self._cur.execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND episode_id = ANY(%s::text[])",
            (self.tenant, wanted),
        ).fetchall()
        found = {row[1]: EpisodeRow(*row) for row in rows}
        self._episodes.update((i, found.get(i)) for i in wanted)

    def insert_episode(self, row: EpisodeRow) -> None:
        self._episodes.pop(row.episode_id, None)
        self._cur.execute(
            f"INSERT INTO episodes ({EPISODE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (row.tenant, row.episode_id, Micros(row.occurred_at), Micros(row.recorded_at), row.text,
             row.speaker, row.kind, row.session, row.metadata, row.schema_version, row.retention,
             None if row.lost_at is None else Micros(row.lost_at)),
        )

    def delete_episode(self, episode_id: str) -> int:
        self._episodes.pop(episode_id, None)
        return self._count("DELETE FROM episodes WHERE tenant = %s AND episode_id = %s RETURNING 1",
                           (self.tenant, episode_id))

    def _count(self, statement: str, params: tuple[Any, ...]) -> int:
        """Rows a DELETE touched; ``RETURNING`` because pipeline mode has no rowcount yet."""
        return len(self._cur.execute(statement, params).fetchall())

    def schema_version(self) -> int:
        if self._version is None:
            row = self._cur.execute(
                "SELECT version FROM tenant_schema WHERE tenant = %s", (self.tenant,)
            ).fetchone()
            self._version = int(row[0]) if row else 0
        return self._version

    def _shared_schemas(
        self,
    ) -> tuple[dict[str, AttributeSchema | None], dict[str, MemoryTypeSchema | None]] | None:
        """The cross-transaction cache at this transaction's schema version (None once
        this transaction changed the schema: what it reads may never commit)."""
        if self._schema_changed:
            return None
        version = self.schema_version()
        entry = self._schemas.get(self.tenant)
        if entry is None or entry[0] != version:
            entry = (version, {}, {})
            self._schemas[self.tenant] = entry
        return entry[1], entry[2]

    def bump_schema_version(self) -> int:
        row = self._cur.execute(
            "INSERT INTO tenant_schema AS t (tenant, version) VALUES (%s, 1) "
            "ON CONFLICT (tenant) DO UPDATE SET version = t.version + 1 RETURNING version",
            (self.tenant,),
        ).fetchone()
        assert row is not None
        self._version = int(row[0])
        self._schema_changed = True
        return self._version

    def attribute_schema(self, attribute: str) -> AttributeSchema | None:
        if attribute not in self._attributes:
            shared = self._shared_schemas()
            if shared is not None and attribute in shared[0]:
                self._attributes[attribute] = shared[0][attribute]
            else:
                found = self._attribute_schema_rows("AND attribute = %s", (attribute,))
                self._attributes[attribute] = found[0] if found else None
                if shared is not None:
                    shared[0][attribute] = self._attributes[attribute]
        return self._attributes[attribute]

    def put_attribute_schema(self, schema: AttributeSchema) -> None:
        self._attributes.pop(schema.attribute, None)
        self._cur.execute(
            "INSERT INTO attribute_schemas (tenant, attribute, value_type, memory_type, sensitive, "
            "description, schema_version) VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (tenant, attribute) DO UPDATE SET value_type = excluded.value_type, "
            "memory_type = excluded.memory_type, sensitive = excluded.sensitive, "
            "description = excluded.description, schema_version = excluded.schema_version",
            (self.tenant, schema.attribute, schema.value_type.value if schema.value_type else None,
             schema.memory_type, schema.sensitive, schema.description, schema.schema_version),
        )

    def memory_type(self, name: str) -> MemoryTypeSchema | None:
        if name not in self._types:
            shared = self._shared_schemas()
            if shared is not None and name in shared[1]:
                self._types[name] = shared[1][name]
            else:
                found = self._memory_type_rows("AND name = %s", (name,))
                self._types[name] = found[0] if found else None
                if shared is not None:
                    shared[1][name] = self._types[name]
        return self._types[name]

    def put_memory_type(self, schema: MemoryTypeSchema) -> None:
        self._types.pop(schema.name, None)
        self._cur.execute(
            "INSERT INTO memory_types (tenant, name, json_schema, schema_version) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (tenant, name) DO UPDATE SET json_schema = excluded.json_schema, "
            "schema_version = excluded.schema_version",
            (self.tenant, schema.name,
             json.dumps(schema.json_schema) if schema.json_schema is not None else None,
             schema.schema_version),
        )

    # one key --------------------------------------------------------------------------

    def document_store(self) -> PostgresDocuments:
        """Document memory's tables, for erasure and expiry inside this unit of work."""
        from .documents import PostgresDocuments

        return PostgresDocuments(lock_key)

    def lock_keys(self, keys: list[tuple[str, str]]) -> None:
        """Lock every subject of a batch at once, then fetch each key's last transaction
        time and current versions in two statements instead of two per key."""
        self._lock(subject for subject, _ in keys)
        self.flush()
        subjects, attributes = [k[0] for k in keys], [k[1] for k in keys]
        last = self._ask(
            "SELECT k.s, k.a, (SELECT recorded_at FROM operations o WHERE o.tenant = %s "
            "AND o.subject = k.s AND o.attribute = k.a ORDER BY seq DESC LIMIT 1) "
            "FROM unnest(%s::text[], %s::text[]) AS k(s, a)",
            (self.tenant, subjects, attributes),
        )
        current = self._ask(
            f"SELECT {VERSION_COLUMNS} FROM unnest(%s::text[], %s::text[]) AS k(s, a) "
            "JOIN assertions ON tenant = %s AND subject = k.s AND attribute = k.a "
            "AND recorded_to IS NULL ORDER BY subject, attribute, valid_from",
            (subjects, attributes, self.tenant),
        )
        self._last.update(((row[0], row[1]), row[2]) for row in last.fetchall())
        found: dict[tuple[str, str], list[Version]] = {key: [] for key in keys}
        for row in current.fetchall():
            found[(row[2], row[3])].append(version_from_row(row))
        self._current.update(found)

    def _ask(self, statement: str, params: tuple[Any, ...]) -> Cursor:
        """Send a lookup on a cursor of its own without waiting: in pipeline mode, the
        first fetch then brings back the results of every lookup sent, in one round trip."""
        cur = self._cur.connection.cursor(binary=True)
        cur.execute(statement, params)
        return cur

    def prefetch_one(self, subject: str, attribute: str, moment: int, source: str) -> None:
        """Lock the subject, then ask in one round trip for everything a one-operation
        unit of work looks up: schema version, source episode, the key's last change, the
        versions around ``moment`` and the operation's sequence number."""
        self._lock([subject])
        self.flush()
        key = (subject, attribute)
        version = None if self._version is not None else self._ask(
            "SELECT version FROM tenant_schema WHERE tenant = %s", (self.tenant,))
        episode = None if source in self._episodes else self._ask(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND episode_id = %s", (self.tenant, source))
        last = self._ask(_LAST_RECORDED, (self.tenant, subject, attribute))
        near = self._ask(_NEAR, (self.tenant, subject, attribute, Micros(moment)) * 2)
        seq = self._ask(_NEXT_SEQ, ())
        if version is not None:
            row = version.fetchone()
            self._version = int(row[0]) if row else 0
        if episode is not None:
            row = episode.fetchone()
            self._episodes[source] = EpisodeRow(*row) if row else None
        row = last.fetchone()
        self._last[key] = int(row[0]) if row else None
        rows = near.fetchall()
        floors = [version_from_row(r[1:]) for r in rows if r[0] == 0]
        ceiling = next((version_from_row(r[1:]) for r in rows if r[0] == 1), None)
        self._near[key] = (moment, floors, ceiling)
        row = seq.fetchone()
        assert row is not None
        self._seqs.append(int(row[0]))

    def _forget_cached(self, subject: str, attribute: str) -> None:
        self._current.pop((subject, attribute), None)
        self._last.pop((subject, attribute), None)
        self._near.pop((subject, attribute), None)

    def key(self, subject: str, attribute: str) -> KeyView:
        """From the current versions ``lock_keys`` loaded if it did, else index lookups
        (answered from ``prefetch_one``'s rows when they are about the same instant)."""
        self._lock([subject])
        self.flush()
        loaded = self._current.pop((subject, attribute), None)
        near = self._near.pop((subject, attribute), None)
        if loaded is not None:
            return KeyTimeline(loaded)
        return _Key(self._cur, self.tenant, subject, attribute, near)

    def current(self, subject: str, attribute: str) -> list[Version]:
        self._lock([subject])
        cached = self._current.pop((subject, attribute), None)
        if cached is not None:
            return cached
        self.flush()
        rows = self._cur.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
            "ORDER BY valid_from",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [version_from_row(row) for row in rows]

    def operations(self, subject: str, attribute: str) -> list[Operation]:
        self._lock([subject])
        return super().operations(subject, attribute)

    def last_recorded_at(self, subject: str, attribute: str) -> int | None:
        self._lock([subject])
        if (subject, attribute) in self._last:
            return self._last[(subject, attribute)]
        row = self._cur.execute(_LAST_RECORDED, (self.tenant, subject, attribute)).fetchone()
        return int(row[0]) if row else None

    def retire(self, versions: list[Version], recorded_at: int) -> None:
        """Queue the change; ``flush`` sends every queued retirement in two statements
        before anything reads or inserts versions (a batch retires per key)."""
        for version in versions:
            self._current.pop((version.subject, version.attribute), None)
            self._near.pop((version.subject, version.attribute), None)
            assert version.row_id is not None
            if version.recorded_from == recorded_at:
                self._drop.append(version.row_id)
            else:
                self._close.setdefault(recorded_at, []).append(version.row_id)

    def flush(self) -> None:
        if self._drop:
            self._cur.execute(
                "DELETE FROM assertions WHERE tenant = %s AND row_id = ANY(%s::bigint[])",
                (self.tenant, self._drop),
            )
            self._drop = []
        for recorded_at, row_ids in self._close.items():
            self._cur.execute(
                "UPDATE assertions SET recorded_to = %s WHERE tenant = %s AND row_id = ANY(%s::bigint[])",
                (Micros(recorded_at), self.tenant, row_ids),
            )
        self._close = {}

    def insert_versions(self, versions: list[Version]) -> None:
        if not versions:
            return
        self._lock({v.subject for v in versions})
        for version in versions:
            self._current.pop((version.subject, version.attribute), None)
            self._near.pop((version.subject, version.attribute), None)
        self.flush()
        self._cur.execute(_INSERT_VERSIONS, (
            self.tenant,
            [v.assertion_id for v in versions], [v.subject for v in versions],
            [v.attribute for v in versions], [v.value for v in versions],
            [v.memory_type for v in versions], MicrosArray(v.valid_from for v in versions),
            MicrosArray(v.valid_to for v in versions), MicrosArray(v.recorded_from for v in versions),
            MicrosArray(v.recorded_to for v in versions), [v.source for v in versions],
            [v.confidence for v in versions], [v.schema_version for v in versions],
            [v.supersedes for v in versions], [v.origin.value for v in versions],
            [v.closed_by for v in versions],
        ))

    def append_operation(self, op: Operation) -> int:
        self._lock([op.subject])
        self._last.pop((op.subject, op.attribute), None)
        if self._seqs:  # drawn by prefetch_one: the insert needs no round trip of its own
            seq = self._seqs.pop(0)
            self._cur.execute(_INSERT_OPERATION, (
                self.tenant, seq, op.subject, op.attribute, op.kind.value, Micros(op.valid_at), op.value,
                op.source, Micros(op.recorded_at), op.memory_type, op.confidence, op.schema_version,
                None if op.expires_at is None else Micros(op.expires_at),
            ))
            return seq
        row = self._cur.execute(
            "INSERT INTO operations (tenant, subject, attribute, kind, valid_at, value, source, "
            "recorded_at, memory_type, confidence, schema_version, expires_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq",
            (self.tenant, op.subject, op.attribute, op.kind.value, Micros(op.valid_at), op.value,
             op.source, Micros(op.recorded_at), op.memory_type, op.confidence, op.schema_version,
             None if op.expires_at is None else Micros(op.expires_at)),
        ).fetchone()
        assert row is not None
        return int(row[0])

    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Draw the sequence numbers first (ascending, so they follow the list), then
        insert every row in one statement."""
        if not ops:
            return []
        self._lock({op.subject for op in ops})
        for op in ops:
            self._last.pop((op.subject, op.attribute), None)
        rows = self._cur.execute(
            "SELECT nextval(pg_get_serial_sequence('operations', 'seq')) FROM generate_series(1, %s)",
            (len(ops),),
        ).fetchall()
        seqs = sorted(int(row[0]) for row in rows)
        self._cur.execute(_INSERT_OPERATIONS, (
            self.tenant, seqs, [op.subject for op in ops], [op.attribute for op in ops],
            [op.kind.value for op in ops], MicrosArray(op.valid_at for op in ops),
            [op.value for op in ops], [op.source for op in ops],
            MicrosArray(op.recorded_at for op in ops), [op.memory_type for op in ops],
            [op.confidence for op in ops], [op.schema_version for op in ops],
            MicrosArray(op.expires_at for op in ops),
        ))
        return seqs

    def apply(self, plan: Plan, recorded_at: int) -> None:
        self.retire(plan.retire, recorded_at)
        self.insert_versions(plan.add)

    # erasure --------------------------------------------------------------------------

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]:
        self._lock([subject])
        rows = self._cur.execute(
            "SELECT DISTINCT attribute FROM operations WHERE tenant = %s AND subject = %s",
            (self.tenant, subject),
        ).fetchall()
        return [(subject, row[0]) for row in rows]

    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]:
        """Lock the episode first: that waits for writers citing it and keeps new ones out,
        so the keys found here are all the keys it sourced."""
        self._cur.execute(
            "SELECT 1 FROM episodes WHERE tenant = %s AND episode_id = %s FOR UPDATE",
            (self.tenant, episode_id),
        )
        rows = self._cur.execute(
            "SELECT DISTINCT subject, attribute FROM operations WHERE tenant = %s AND source = %s",
            (self.tenant, episode_id),
        ).fetchall()
        keys = [(row[0], row[1]) for row in rows]
        self._lock(subject for subject, _ in keys)
        return keys

    def delete_operations_of_subject(self, subject: str) -> int:
        self._lock([subject])
        self._last.clear()
        return self._count("DELETE FROM operations WHERE tenant = %s AND subject = %s RETURNING 1",
                           (self.tenant, subject))

    def delete_operations_of_source(self, episode_id: str) -> int:
        self._last.clear()
        return self._count("DELETE FROM operations WHERE tenant = %s AND source = %s RETURNING 1",
                           (self.tenant, episode_id))

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        self._lock([subject])
        self._forget_cached(subject, attribute)
        self.flush()
        self._cur.execute(f"DELETE FROM assertions WHERE {_KEY}", (self.tenant, subject, attribute))
        self.insert_versions(versions)



class PostgresReader(_Scoped, ExtractionReads, ItemReads, LifecycleReads):
    """Tenant-scoped reads (``Reader``); each is one indexed statement."""

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        if known_at is None:
            row = self._cur.execute(
                f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
                "AND valid_from <= %s ORDER BY valid_from DESC LIMIT 1",
                (self.tenant, subject, attribute, Micros(at)),
            ).fetchone()
        else:
            row = self._cur.execute(
                f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND valid_from <= %s "
                f"AND {_VISIBLE} ORDER BY valid_from DESC LIMIT 1",
                (self.tenant, subject, attribute, Micros(at), Micros(known_at), Micros(known_at)),
            ).fetchone()
        if row is None:
            return None
        version = version_from_row(row)
        return version if version.holds_at(at) else None

    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        if known_at is None:
            sql = (f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND recorded_to IS NULL "
                   "ORDER BY valid_from")
            params: tuple[Any, ...] = (self.tenant, subject, attribute)
        else:
            sql = f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} AND {_VISIBLE} ORDER BY valid_from"
            params = (self.tenant, subject, attribute, Micros(known_at), Micros(known_at))
        return [version_from_row(row) for row in self._cur.execute(sql, params).fetchall()]

    def versions(self, subject: str, attribute: str) -> list[Version]:
        rows = self._cur.execute(
            f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {_KEY} ORDER BY recorded_from, valid_from",
            (self.tenant, subject, attribute),
        ).fetchall()
        return [version_from_row(row) for row in rows]

    def query(self, flt: QueryFilter) -> list[Version]:
        clauses = ["tenant = %s"]
        params: list[Any] = [self.tenant]
        for column, wanted in (("subject", flt.subject), ("memory_type", flt.memory_type)):
            if wanted is not None:
                clauses.append(f"{column} = %s")
                params.append(wanted)
        clause, values = timeline_clause(flt, "strpos(attribute, chr(31)) = 0", "right(attribute, %s) = %s", "%s")
        clauses.append(clause)
        params += values
        if flt.known_at is None:
            clauses.append("recorded_to IS NULL")
        else:
            clauses.append(_VISIBLE)
            params += [Micros(flt.known_at), Micros(flt.known_at)]
        if flt.at is not None:
            clauses.append("valid_from <= %s AND (valid_to IS NULL OR valid_to > %s)")
            params += [Micros(flt.at), Micros(flt.at)]
        if flt.after is not None:
            clauses.append("(subject, attribute, valid_from) > (%s, %s, %s)")
            params += [flt.after[0], flt.after[1], Micros(flt.after[2])]
        sql = (f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {' AND '.join(clauses)} "
               "ORDER BY subject, attribute, valid_from LIMIT %s")
        return [version_from_row(row) for row in self._cur.execute(sql, (*params, flt.limit)).fetchall()]

    def episodes(self, session: str | None, limit: int) -> list[EpisodeRow]:
        if session is None:
            sql = f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s ORDER BY seq LIMIT %s"
            params: tuple[Any, ...] = (self.tenant, limit)
        else:
            sql = (f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND session = %s "
                   "ORDER BY occurred_at, seq LIMIT %s")
            params = (self.tenant, session, limit)
        return [EpisodeRow(*row) for row in self._cur.execute(sql, params).fetchall()]

    def attribute_schemas(self) -> list[AttributeSchema]:
        return self._attribute_schema_rows("", ())

    def memory_types(self) -> list[MemoryTypeSchema]:
        return self._memory_type_rows("", ())


POSTGRES_RESIDUE = (
    "PostgreSQL keeps the erased rows' bytes as dead tuples in table and index files (and "
    "in the WAL) until the tables are rewritten: run `sgam compact` as the owner"
)


class PostgresBackend:
    """A pool of connections as one application role that row-level security binds.

    ``admin_url`` (an owner role) lets the backend install or upgrade the schema itself;
    without it a missing schema is an error that names ``sgam migrate``.
    ``allow_unsafe_for_tests`` accepts a superuser, BYPASSRLS or owner connection (which
    then also migrates itself): for tests and local experiments only.
    """

    def __init__(
        self, url: str, *, admin_url: str | None = None, allow_unsafe_for_tests: bool = False,
        min_size: int = 1, max_size: int = 8, retries: int = 12,
    ) -> None:
        self.url = url
        self._retries = retries
        self._schemas: SchemaCache = {}
        connect(url, autocommit=True).close()  # fails fast, in one line, if the server cannot be reached
        self._pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, open=False, configure=configure,
            kwargs={"autocommit": True, "prepare_threshold": 0, **connect_options(url)}, name="sgam",
        )
        try:
            with map_postgres_errors():
                self._pool.open(wait=True, timeout=30)
                self._setup(admin_url, allow_unsafe_for_tests)
        except BaseException:
            self._pool.close()
            raise

    def _setup(self, admin_url: str | None, allow_unsafe: bool) -> None:
        with self._pool.connection() as conn:
            version = installed_version(conn)
            check_not_newer(version, "at " + _where(conn))
            if version < len(MIGRATIONS):
                if admin_url is not None:
                    migrate(admin_url, grant_to=[_current_user(conn)])
                elif allow_unsafe:
                    migrate(self.url)
                else:
                    raise StoreError(
                        f"the sgam schema at {_where(conn)} is at version {version}, this sgam needs "
                        f"{len(MIGRATIONS)}: run `sgam migrate --db ADMIN_URL` as the owner role"
                    )
            if not allow_unsafe:
                check_safe(conn, f"to use {_where(conn)}")

    def schema_version(self) -> int:
        with map_postgres_errors(), self._pool.connection() as conn:
            return installed_version(conn)

    def run_write(self, tenant: str, work: Callable[[PostgresWrite], T]) -> T:
        check_tenant(tenant)
        prelock: list[int] = []
        delay = 0.002
        attempt = 0
        while True:
            try:
                return self._attempt(tenant, work, prelock)
            except LockOrderError as exc:
                prelock = exc.keys
                continue
            except psycopg.Error as exc:
                if not is_retryable(exc) or attempt >= self._retries:
                    raise to_sgam(exc) from exc
            attempt += 1
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.25)

    def _attempt(self, tenant: str, work: Callable[[PostgresWrite], T], prelock: list[int]) -> T:
        with self._pool.connection() as conn, conn.pipeline(), conn.transaction():
            cur = conn.cursor(binary=True)
            cur.execute("SELECT set_config('sgam.tenant', %s, true)", (tenant,))
            txn = PostgresWrite(cur, tenant, prelock, self._schemas)
            result = work(txn)
            txn.flush()
            return result

    @contextmanager
    def read(self, tenant: str) -> Iterator[PostgresReader]:
        """A read is the implicit transaction of one pipeline on an autocommit connection:
        every statement until the pipeline's closing Sync runs in one transaction, so the
        transaction-local tenant holds for all of them and ends with it. No BEGIN/COMMIT
        to send: a point read measured 1.7-1.9x faster than in an explicit transaction."""
        check_tenant(tenant)
        with map_postgres_errors(), self._pool.connection() as conn, conn.pipeline():
            cur = conn.cursor(binary=True)
            cur.execute("SELECT set_config('sgam.tenant', %s, true)", (tenant,))
            yield PostgresReader(cur, tenant)

    def purge_residue(self, wait: float = 1.0) -> str | None:
        """Nothing can be done synchronously, so the residue is reported. Erased rows are
        gone from every read path when the erasure commits (MVCC hides them from all later
        snapshots), but their bytes stay in heap and index files until the tables are
        rewritten: ``VACUUM FULL`` as the owner (``sgam compact``), which locks each table
        and costs O(table), so it is never run per erasure. docs/postgres.md has details."""
        return POSTGRES_RESIDUE

    def close(self) -> None:
        self._pool.close()

    def document_store(self) -> PostgresDocuments:
        """Document memory's tables over this backend's tenant-scoped transactions."""
        from .documents import PostgresDocuments

        return PostgresDocuments(lock_key)

    def search_index(self) -> PostgresSearchIndex:
        """Full text and pgvector over this backend's tenant-scoped transactions."""
        from .search import PostgresSearchIndex

        return PostgresSearchIndex(self)

    def claim_jobs(self, owner: str, now: int, lease_until: int, limit: int, tenant: str | None) -> list[JobRow]:
        with map_postgres_errors(), self._pool.connection() as conn, conn.transaction():
            return claim_jobs(conn.cursor(binary=True), owner, now, lease_until, limit, tenant)

    def count_jobs(self, now: int, tenant: str | None) -> int:
        with map_postgres_errors(), self._pool.connection() as conn:
            return count_jobs(conn.cursor(binary=True), now, tenant)

    def due_tenants(self, now: int) -> list[str]:
        with map_postgres_errors(), self._pool.connection() as conn:
            return due_tenants(conn.cursor(binary=True), now)

    def residue(self, tenant: str, needles: Sequence[str]) -> list[ResidueHit]:
        check_tenant(tenant)
        with map_postgres_errors(), self._pool.connection() as conn, conn.transaction():
            cur = conn.cursor(binary=True)
            cur.execute("SELECT set_config('sgam.tenant', %s, true)", (tenant,))
            return scan.scan_tables(cur, TENANT_TABLES, needles)


def _current_user(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_user").fetchone()
    assert row is not None
    return str(row[0])


def _where(conn: psycopg.Connection[Any]) -> str:
    info = conn.info
    return f"database {info.dbname!r} as {info.user!r}"
