"""The PostgreSQL write unit of work: the portable ledger statements plus what is
PostgreSQL's own: statements in a pipeline (``pipeline.py``), advisory locks per (tenant,
subject) (``locks.py``), a one-fact write's lookups as plain statements answered in one
round trip (``lookups.py``), batched retirements and multi-row inserts (``inserts.py``; the backend module's
docstring tells why). What it has loaded about keys it keeps as SQLite does
(``_sql/keystate.py``); what it has read of the schema, in ``KnownSchema``, shared with
later units of work at the same schema version (``schemas.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..._core.purpose import ConsentRow
from ..._core.rules import KeyView, Operation, Version
from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .._context import Attempt
from .._records import BackfillRow, EpisodeRow
from .._requests import OneFactWrite
from .._rows import EPISODE_COLUMNS, VERSION_COLUMNS, version_from_row
from .._sql.access import AccessWrites
from .._sql.checkpoints import CheckpointAccess
from .._sql.dialect import Dialect
from .._sql.extraction import ExtractionWrites
from .._sql.keystate import KeyStates
from .._sql.ledger_writes import LedgerWrites
from .._sql.subjects import SubjectWrites
from . import inserts
from .adapters import Micros, micros
from .items import ItemWrites
from .lifecycle import LifecycleWrites
from .locks import SCHEMA_EXCLUSIVE, SCHEMA_SHARED, SubjectLocks, lock_key, schema_lock_key
from .lookups import Lookups
from .pipeline import WritePipeline
from .portable import PostgresPortableRows
from .schemas import KnownSchema, SchemaCache
from .session import Cursor, ScopedSession

if TYPE_CHECKING:  # documents import nothing of the write unit of work at run time
    from .documents import PostgresDocuments


class PostgresWrite(
    LedgerWrites, ExtractionWrites, ItemWrites, LifecycleWrites, AccessWrites, SubjectWrites,
    CheckpointAccess,
):
    """One READ COMMITTED unit of work for one tenant (``WriteTransaction``)."""

    acting_for: Attempt | None = None

    def __init__(
        self, cur: Cursor, tenant: str, prelock: list[int], dialect: Dialect, schemas: SchemaCache | None = None,
        quiet: dict[str, int] | None = None,
    ) -> None:
        self._pipe = WritePipeline(cur, tenant, dialect)
        super().__init__(ScopedSession(self._pipe.cursor, dialect), tenant)
        self._locks = SubjectLocks(tenant, self._pipe.cursor)
        self._keys = KeyStates()
        self._schemas: SchemaCache = {} if schemas is None else schemas
        self._quiet: dict[str, int] = {} if quiet is None else quiet
        """Per tenant, a schema version at which it had no unfinished backfill: a step that
        starts one changes the version, so until the version moves nothing is asked."""
        self._schema = KnownSchema(tenant, self._schemas)
        self._schema_held = False
        self._seqs: list[int] = []
        self._episodes: dict[str, EpisodeRow | None] = {}
        self._drop: list[int] = []
        self._close: dict[int, list[int]] = {}
        self._consents: dict[str, list[ConsentRow]] = {}
        self._resolved: dict[str, str] = {}
        self._pending: Callable[[], bool | None] | None = None
        if prelock:  # the schema's lock before any subject's, as every unit of work takes them
            self._hold_schema_shared()
            self._locks.acquire(prelock, wait=True)

    def finish(self) -> None:
        """Send what is still queued (retirements, an operation) before the commit."""
        self.flush()
        self._pipe.finish()

    # locking --------------------------------------------------------------------------

    def _lock(self, subjects: Iterable[str]) -> None:
        """Hold the advisory locks of ``subjects`` (after what ``prefetch_one`` took), the
        schema's first: every unit of work takes them in that order."""
        self._receive()
        self._hold_schema_shared()
        self._locks.lock(subjects)

    def _hold_schema_shared(self) -> None:
        """Before the unit of work first reads the schema, locks a subject or appends an
        operation: a step changing the schema waits for it to end, or it waits for the step
        (``locks.py``). Sent in the pipeline, it costs no round trip."""
        if not self._schema_held:
            self._schema_held = True
            self._pipe.cursor().execute(SCHEMA_SHARED, (schema_lock_key(self.tenant),))

    def hold_schema(self) -> None:
        """A step's exclusive hold of the tenant's schema, taken before it reads anything;
        if this unit of work already holds it shared, the hold is raised (two steps doing
        so at once deadlock, and the one PostgreSQL picks runs again)."""
        self._receive()
        self._schema_held = True
        self._schema.forget()
        self._pipe.cursor().execute(SCHEMA_EXCLUSIVE, (schema_lock_key(self.tenant),))

    def unfinished_backfills(self) -> list[BackfillRow]:
        """Every write asks (``_backfill.convert_key``); the schema version its lookups
        brought answers for the tenants that have none, which is nearly all."""
        version = self.schema_version()
        if self._quiet.get(self.tenant) == version and not self._schema.changed:
            return []
        found = super().unfinished_backfills()
        if not found and not self._schema.changed:
            self._quiet[self.tenant] = version
        return found

    def lock_subjects(self, subjects: Sequence[str]) -> None:
        """A backfill's batch holds its subjects before it reads their operations, so an
        erasure committed meanwhile is seen (READ COMMITTED) and never undone."""
        self._lock(subjects)

    # episodes and schema: looked up once per unit of work (a batch asks per fact) -------

    def episode(self, episode_id: str) -> EpisodeRow | None:
        self._receive()
        if episode_id not in self._episodes:
            self._episodes[episode_id] = super().episode(episode_id)
        return self._episodes[episode_id]

    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        wanted = [i for i in dict.fromkeys(episode_ids) if i not in self._episodes]
        if not wanted:
            return
        rows = self._pipe.cursor().execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND episode_id = ANY(%s::text[])",
            (self.tenant, wanted),
        ).fetchall()
        found = {row[1]: EpisodeRow(*row) for row in rows}
        self._episodes.update((i, found.get(i)) for i in wanted)

    def insert_episodes(self, rows: Sequence[EpisodeRow]) -> None:
        """One multi-row statement for the batch (``inserts.py``)."""
        self._receive()
        for row in rows:
            self._episodes.pop(row.episode_id, None)
        values = [(self.tenant, r.episode_id, Micros(r.occurred_at), Micros(r.recorded_at), r.text, r.speaker,
                   r.kind, r.session, r.metadata, r.schema_version, r.retention, micros(r.lost_at)) for r in rows]
        for statement, params in self._db.dialect.batches(inserts.EPISODES, values):
            self._pipe.cursor().execute(statement, params)

    def delete_episode(self, episode_id: str) -> int:
        self._receive()
        self._episodes.pop(episode_id, None)
        return super().delete_episode(episode_id)

    def schema_version(self) -> int:
        self._hold_schema_shared()
        self._receive()
        if self._schema.version is None:
            self._schema.version = self._stored_schema_version()
        return self._schema.version

    def bump_schema_version(self) -> int:
        return self._schema.bumped(super().bump_schema_version())

    def attribute_schema(self, attribute: str) -> AttributeSchema | None:
        self._hold_schema_shared()
        return self._schema.attribute(attribute, self.schema_version, self._stored_attribute_schema)

    def _stored_attribute_schema(self, attribute: str) -> AttributeSchema | None:
        found = self._attribute_schema_rows(attribute)
        return found[0] if found else None

    def put_attribute_schema(self, schema: AttributeSchema) -> None:
        self._schema.attributes.pop(schema.attribute, None)
        super().put_attribute_schema(schema)

    def memory_type(self, name: str) -> MemoryTypeSchema | None:
        self._hold_schema_shared()
        return self._schema.memory_type(name, self.schema_version, self._stored_memory_type)

    def _stored_memory_type(self, name: str) -> MemoryTypeSchema | None:
        found = self._memory_type_rows("AND name = ?", (name,))
        return found[0] if found else None

    def put_memory_type(self, schema: MemoryTypeSchema) -> None:
        self._schema.types.pop(schema.name, None)
        super().put_memory_type(schema)

    # one key --------------------------------------------------------------------------

    def documents(self) -> PostgresDocuments:
        from .documents import PostgresDocuments

        return PostgresDocuments(self._db, self.tenant, lock_key)

    def portable(self) -> PostgresPortableRows:
        return PostgresPortableRows(self._db, self.tenant, self._schemas, self._quiet)

    def lock_keys(self, keys: list[tuple[str, str]], since: list[int] | None = None) -> None:
        """Lock every subject of a batch at once, then fetch each key's last transaction
        time and current versions in two statements instead of two per key (every current
        version: ``since`` is not used here)."""
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
        self._keys.loaded(keys, last.fetchall(), [version_from_row(row) for row in current.fetchall()])

    def _ask(self, statement: str, params: tuple[Any, ...]) -> Cursor:
        """Send a lookup on a cursor of its own without waiting: in pipeline mode, the
        first fetch then brings back the results of every lookup sent, in one round trip."""
        self._pipe.cursor()
        cur = self._pipe.fresh()
        cur.execute(statement, params)
        return cur

    def prefetch_one(self, request: OneFactWrite) -> None:
        """Name everything a one-operation unit of work looks up: the subject's lock, then
        schema version, source episode, the key's last change, the versions around its
        instant, the subject's consent statements and the operation's sequence number.
        Nothing is sent yet: the ledger asks the deadline probe next, and the lookups go
        with it, each a statement of its own, in one round trip (``lookups.py``); anything
        sent first takes them along, without the probe."""
        self._receive()
        self.flush()
        self._hold_schema_shared()
        source = None if request.source in self._episodes else request.source
        lookups = Lookups(self.tenant, request, source, self._locks.claim(request.subject), not self._locks.held,
                          self._schema.version is None, request.subject not in self._consents)
        self._pipe.defer(lambda now: self._send_lookups(lookups, now))

    def _send_lookups(self, lookups: Lookups, now: int | None) -> None:
        """Send the lookups (with the probe at ``now`` if given), each on a cursor of its
        own; ``_receive`` takes the answers in."""
        sent = lookups.send(self._pipe.fresh, now)

        def receive() -> bool | None:
            found = lookups.receive(sent)
            if found.refused:
                raise self._locks.refused(lookups.locks)
            self._locks.taken(lookups.locks)
            request = lookups.request
            if lookups.version:
                self._schema.version = found.version
            if lookups.source is not None:
                self._episodes[lookups.source] = found.episode
            self._keys.noted((request.subject, request.attribute), request.moment, found.near, found.last)
            self._seqs.append(found.seq)
            if lookups.consents:
                self._consents[request.subject] = found.consents
            self._resolved[request.subject] = found.resolved
            return found.due

        self._pending = receive

    def _receive(self) -> bool | None:
        """Take in what ``prefetch_one`` asked for, before anything reads or drops what it
        caches; the first read that waits for the server brings it along. Returns the
        probe's answer if the lookups carried it."""
        if self._pipe.deferred:
            self._pipe.open()
        if self._pending is None:
            return None
        receive, self._pending = self._pending, None
        return receive()

    def lifecycle_due(self, now: int) -> bool:
        """Asked after ``prefetch_one`` when the ledger prefetches first: the probe goes
        in the lookups' statement, one round trip for both."""
        if self._pipe.deferred:
            self._pipe.open(now)
            due = self._receive()
            assert due is not None
            return due
        due = super().lifecycle_due(now)
        self._receive()
        return due

    def consents(self, subject: str | None) -> list[ConsentRow]:
        """The statements about the subject (under every name) as ``prefetch_one``
        brought them in its round trip, if it did (read after the subject's lock, where a
        separate query read them before)."""
        self._receive()
        if subject is not None and subject in self._consents:
            return self._consents[subject]
        return super().consents(subject)

    def resolve_subject(self, name: str, known_at: int | None = None) -> str:
        """What ``name`` means now as ``prefetch_one`` brought it, if it did."""
        self._receive()
        if known_at is None and name in self._resolved:
            return self._resolved[name]
        return super().resolve_subject(name, known_at)

    def resolve_names(self, changes: dict[str, str | None], at: int) -> None:
        self._resolved.clear()
        super().resolve_names(changes, at)

    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None:
        self._consents.clear()  # a statement about one name changes what every name of its subject reads
        super().put_consent(subject, purpose, granted, at)

    def delete_consents(self, rows: Sequence[ConsentRow]) -> int:
        self._consents.clear()
        return super().delete_consents(rows)

    def key(self, subject: str, attribute: str) -> KeyView:
        """From the current versions ``lock_keys`` loaded if it did, else index lookups
        (answered from ``prefetch_one``'s rows when they are about the same instant)."""
        self._lock([subject])
        self.flush()
        return self._keys.view(self._db, self.tenant, (subject, attribute))

    def current(self, subject: str, attribute: str) -> list[Version]:
        self._lock([subject])
        cached = self._keys.take_current((subject, attribute))
        if cached is not None:
            return cached
        self.flush()
        return super().current(subject, attribute)

    def operations(self, subject: str, attribute: str) -> list[Operation]:
        self._lock([subject])
        return super().operations(subject, attribute)

    def last_recorded_at(self, subject: str, attribute: str) -> int | None:
        self._lock([subject])
        return self._keys.last((subject, attribute), lambda: super(PostgresWrite, self).last_recorded_at(
            subject, attribute))

    def retire(self, versions: list[Version], recorded_at: int) -> None:
        """Queue the change; ``flush`` sends every queued retirement in two statements
        before anything reads or inserts versions (a batch retires per key)."""
        self._receive()
        self._keys.versions_changed(versions)
        for version in versions:
            assert version.row_id is not None
            if version.recorded_from == recorded_at:
                self._drop.append(version.row_id)
            else:
                self._close.setdefault(recorded_at, []).append(version.row_id)

    def flush(self) -> None:
        if self._drop:
            self._pipe.cursor().execute(
                "DELETE FROM assertions WHERE tenant = %s AND row_id = ANY(%s::bigint[])",
                (self.tenant, self._drop),
            )
            self._drop = []
        for recorded_at, row_ids in self._close.items():
            self._pipe.cursor().execute(
                "UPDATE assertions SET recorded_to = %s WHERE tenant = %s AND row_id = ANY(%s::bigint[])",
                (Micros(recorded_at), self.tenant, row_ids),
            )
        self._close = {}

    def insert_versions(self, versions: list[Version]) -> None:
        if not versions:
            return
        self._lock({v.subject for v in versions})
        self._keys.versions_changed(versions)
        self.flush()
        queued, named = self._pipe.take_held()  # the operation and its versions: one statement
        if len(versions) == 1:
            row = self._version_row(versions[0])
            if queued is None:
                self._pipe.cursor().execute(inserts.VERSION, row)
            elif named is None:
                self._pipe.cursor().execute(inserts.OPERATION_AND_VERSION, (*queued, *row))
            else:
                self._pipe.cursor().execute(inserts.NAMED_OPERATION_AND_VERSION, (*queued, *named, *row))
            return
        rows = [self._version_row(v) for v in versions]
        first, prefix = (None, ()) if queued is None else (
            (inserts.OPERATION_AND_VERSIONS, queued) if named is None
            else (inserts.NAMED_OPERATION_AND_VERSIONS, (*queued, *named)))
        for statement, params in self._db.dialect.batches(inserts.VERSIONS, rows, first, prefix):
            self._pipe.cursor().execute(statement, params)

    def note_spellings(self, spellings: Sequence[tuple[str, str]]) -> None:
        """A one-fact write's spelling travels in its operation's statement (no statement
        of its own); anything else goes as the portable insert."""
        if len(spellings) == 1 and self._pipe.name_held((self.tenant, *spellings[0])):
            return
        super().note_spellings(spellings)

    def _version_row(self, v: Version) -> tuple[Any, ...]:
        return (
            self.tenant, v.assertion_id, v.subject, v.attribute, v.value, v.memory_type, Micros(v.valid_from),
            micros(v.valid_to), Micros(v.recorded_from), micros(v.recorded_to), v.source, v.confidence,
            v.schema_version, v.supersedes, v.origin.value, v.closed_by,
        )

    def append_operation(self, op: Operation) -> int:
        self._hold_schema_shared()
        self._lock([op.subject])
        self._keys.appended((op.subject, op.attribute))
        if not self._seqs:
            return super().append_operation(op)
        seq = self._seqs.pop(0)  # drawn by prefetch_one: the insert needs no round trip of its own
        self._pipe.hold((
            self.tenant, op.subject, op.attribute, op.kind.value, Micros(op.valid_at), op.value,
            op.source, Micros(op.recorded_at), op.memory_type, op.confidence, op.schema_version,
            micros(op.expires_at), seq,
        ))
        return seq

    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Draw the tenant's operation numbers first (ascending, so they follow the
        list), then insert every row in one statement."""
        if not ops:
            return []
        self._hold_schema_shared()
        self._lock({op.subject for op in ops})
        for op in ops:
            self._keys.appended((op.subject, op.attribute))
        seqs = self.draw_operation_numbers(len(ops))
        rows = [(self.tenant, op.subject, op.attribute, op.kind.value, Micros(op.valid_at), op.value, op.source,
                 Micros(op.recorded_at), op.memory_type, op.confidence, op.schema_version, micros(op.expires_at), seq)
                for op, seq in zip(ops, seqs, strict=True)]
        for statement, params in self._db.dialect.batches(inserts.OPERATIONS, rows):
            self._pipe.cursor().execute(statement, params)
        return seqs

    # erasure --------------------------------------------------------------------------

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]:
        self._lock([subject])
        return super().keys_of_subject(subject)

    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]:
        """Lock the episode first: that waits for writers citing it and keeps new ones out,
        so the keys found here are all the keys it sourced."""
        self._pipe.cursor().execute(
            "SELECT 1 FROM episodes WHERE tenant = %s AND episode_id = %s FOR UPDATE",
            (self.tenant, episode_id),
        )
        keys = super().keys_of_source(episode_id)
        self._lock(subject for subject, _ in keys)
        return keys

    def delete_operations_of_subject(self, subject: str) -> int:
        self._lock([subject])
        self._keys.operations_erased()
        return super().delete_operations_of_subject(subject)

    def delete_operations_of_source(self, episode_id: str) -> int:
        self._keys.operations_erased()
        return super().delete_operations_of_source(episode_id)

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        self._lock([subject])
        self._keys.forget((subject, attribute))
        self.flush()
        super().replace_versions(subject, attribute, versions)
