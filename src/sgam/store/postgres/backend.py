"""PostgreSQL backend: psycopg 3 with a connection pool, row-level security by tenant.

Each unit of work is one READ COMMITTED transaction (the implicit transaction of one
pipeline, ``_attempt``, or the one its dialect begins) that first sets ``sgam.tenant``
(``SET LOCAL``: transaction-local, ``Dialect.set_tenant``) so RLS admits only that
tenant's rows. Writers
serialise per (tenant, subject) on transaction-level advisory locks, taken the first
time the unit of work touches a subject: the rules read a key, then change it, and the
lock makes that read-then-write atomic without SERIALIZABLE's
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
round trip) with server-side prepared statements from the first execution (planning each
every time halved throughput); a one-fact write is two statements (``lookups.py``).
Retirements are queued and sent as one UPDATE (and one DELETE) before anything reads or
inserts versions, so a batch touching a thousand keys does not send a thousand UPDATEs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from ..._core.errors import StoreError
from ..._core.values import check_tenant
from .._acting import mark_acted
from .._context import NO_CONTEXT, CallContext, KeyToCheck
from .._records import JobRow, ResidueScan
from .._requests import ReadAhead
from .._sql.access import AccessReads
from .._sql.checkpoints import CheckpointAccess
from .._sql.dialect import POSTGRES, Dialect
from .._sql.extraction import ExtractionReads
from .._sql.lanes import LANES, check_lanes
from .._sql.ledger import LedgerReader
from .._sql.subjects import SubjectReads
from . import scan
from .adapters import configure
from .ahead import statement
from .checkpoints import PostgresCheckpointWriter
from .connect import connect
from .connect import options as connect_options
from .distribute import dialect_of
from .errors import is_retryable, map_postgres_errors, to_sgam
from .extraction import claim_jobs, count_jobs
from .install import installed_version, migrate, verify_checksums
from .items import ItemReads
from .keys import check_key_alone, send_key_check
from .lanes import SnapshotLanes
from .lifecycle import LifecycleReads, due_tenants
from .locks import LockOrderError, lock_key
from .migrations import MIGRATIONS, TENANT_TABLES
from .portable import PostgresPortableRows
from .schemas import SchemaCache
from .security import check_safe
from .session import AloneSession, Cursor, ScopedSession
from .write import PostgresWrite

if TYPE_CHECKING:
    from .documents import PostgresDocuments
    from .search import PostgresSearchIndex

T = TypeVar("T")

class PostgresReader(
    LedgerReader, ExtractionReads, ItemReads, LifecycleReads, AccessReads, SubjectReads, CheckpointAccess,
):
    """Tenant-scoped reads (``Reader``); each is one indexed statement.

    The read's transaction starts with its first statement: a pipeline whose statements
    run in one snapshot (the dialect's), the tenant set first, committed before its
    closing Sync. Reads named ahead (``prefetch``: a point read names its consents, names
    and versions) travel with the deadline probe: plain statements, one round trip, one
    snapshot."""

    def __init__(
        self, conn: psycopg.Connection[Any], tenant: str, scope: ExitStack, dialect: Dialect, *,
        alone: bool = False, key: KeyToCheck | None = None,
        pool: ConnectionPool[psycopg.Connection[Any]] | None = None, lanes: int = 0,
    ) -> None:
        self._conn = conn
        self._pool = pool
        self._lane_count = lanes
        self._lanes: SnapshotLanes | None = None
        self._dialect = dialect
        self._key = key
        self.sent_key = False
        self._scope = scope
        self._started: Cursor | None = None
        self._planned: list[tuple[ReadAhead, str, tuple[Any, ...]]] = []
        self._session = (AloneSession(conn, tenant, dialect) if alone
                         else ScopedSession(lambda: self._cur, dialect, self._fresh))
        super().__init__(self._session, tenant)

    @property
    def _cur(self) -> Cursor:
        """The read's cursor inside its pipeline, the tenant set (started on first use)."""
        if self._started is None:
            return self._start()
        return self._started

    def _start(self) -> Cursor:
        """Open the pipeline and the read's snapshot, check the call's key, set the tenant,
        then send what was planned. The snapshot is one transaction: every statement of
        the read (a recall's facts, consents, both search channels and the vector tally
        its copy is checked by) sees the same committed state. Its BEGIN and COMMIT travel
        with the read's first and last waits: no round trip of their own."""
        self._scope.callback(self._undo_failed)
        self._scope.enter_context(self._conn.pipeline())
        self._scope.push(self._commit)
        cur = self._conn.cursor(binary=True)
        cur.execute(self._dialect.snapshot)
        if self._key is not None and not self.sent_key:
            send_key_check(cur, self._dialect, self._key)
            self.sent_key = True
        cur.execute(self._dialect.set_tenant(self.tenant), prepare=False)
        self._started = cur
        self._send_planned()
        return cur

    def _commit(self, kind: type[BaseException] | None, *_: object) -> bool:
        """Queued last in the pipeline, so its closing Sync ends the transaction."""
        if kind is None:
            self._conn.cursor().execute("COMMIT")
        return False

    def _undo_failed(self) -> None:
        """After a failed read (the pipeline closed): end its transaction before the
        connection goes back to the pool."""
        if self._conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            self._conn.rollback()

    def _fresh(self) -> Cursor:
        """A cursor of its own in the read's pipeline (started first if need be): what
        it is given is sent now and answered with the read's next wait."""
        if self._started is None:
            self._start()
        return self._conn.cursor(binary=True)

    def _send_planned(self) -> None:
        """Send each planned statement on a cursor of its own; the read it answers takes
        the rows (``PostgresSession.answer``)."""
        planned, self._planned = self._planned, []
        for request, sql, args in planned:
            sent = self._conn.cursor(binary=True)
            sent.execute(self._dialect.native(sql), args)
            self._session.ahead[request] = sent

    def documents(self) -> PostgresDocuments:
        from .documents import PostgresDocuments

        return PostgresDocuments(self._db, self.tenant, lock_key)

    def portable(self) -> PostgresPortableRows:
        return PostgresPortableRows(self._db, self.tenant, lanes=self._snapshot_lanes)

    def _snapshot_lanes(self) -> SnapshotLanes | None:
        """Connections on this read's snapshot (``lanes.py``), opened on first use and
        closed when the read ends; None where the backend asks for none, the database
        cannot share the snapshot or the pool has no connection to spare."""
        if self._pool is None or not self._lane_count or not self._dialect.exports_snapshots:
            return None
        if self._lanes is None:
            exported = self._session.row("SELECT pg_export_snapshot()")
            assert exported is not None
            self._lanes = SnapshotLanes(self._pool, self._dialect, self.tenant, str(exported[0]), self._lane_count)
            self._scope.callback(self._lanes.close)
        return self._lanes if self._lanes.count else None

    def prefetch(self, requests: Sequence[ReadAhead]) -> None:
        """Plan the statement of each read named (``ahead.py``). Asked before the deadline
        probe, they are answered with it (``lifecycle_due``); otherwise they are sent now,
        each on a cursor of its own, to come back with the read's next wait. The read,
        when it is made, takes those rows instead of asking again; a read that becomes a
        write first (a deadline was due) never uses them."""
        known = {planned[0] for planned in self._planned} | self._session.ahead.keys()
        for request in dict.fromkeys(requests):
            found = None if request in known else statement(self._session, self.tenant, request)
            if found is not None:
                self._planned.append((request, *found))
        if self._started is not None:
            self._send_planned()


POSTGRES_RESIDUE = (
    "PostgreSQL keeps the erased rows' bytes as dead tuples in table and index files (and "
    "in the WAL) until the tables are rewritten: run `sgam compact` as the owner"
)


class PostgresBackend:
    """A pool of connections as one application role that row-level security binds.

    ``admin_url`` (an owner role) lets the backend install or upgrade the schema itself;
    without it a missing schema is an error that names ``sgam migrate``.
    ``allow_unsafe_for_tests`` accepts a superuser, BYPASSRLS or owner connection (which
    then also migrates itself): for tests and local experiments only. ``max_size``
    connections serve as many concurrent reads and writes (each holds one); a call that
    finds none free within ``pool_timeout`` seconds fails with ``BusyError``.
    ``export_lanes`` pooled connections at most build an export's lines beside its read
    (``lanes.py``): about as many as the server has cores to spare for it; 0 builds them
    on the read's own connection.
    """

    checks_keys = True
    """A call's API key is checked with the first statement of each unit of work and read
    (``keys.py``)."""

    def __init__(
        self, url: str, *, admin_url: str | None = None, allow_unsafe_for_tests: bool = False,
        min_size: int = 1, max_size: int = 8, retries: int = 12, pool_timeout: float = 30.0,
        export_lanes: int = LANES,
    ) -> None:
        self._export_lanes = check_lanes(export_lanes)
        self.url = url
        self._retries = retries
        self._schemas: SchemaCache = {}
        self._quiet: dict[str, int] = {}
        self.dialect: Dialect = POSTGRES
        """The database's dialect, read when the backend opens (``dialect_of``)."""
        connect(url, autocommit=True).close()  # fails fast, in one line, if the server cannot be reached
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, min_size=min_size, max_size=max_size, timeout=pool_timeout, open=False, configure=configure,
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
            self.dialect = dialect_of(conn)
            version = installed_version(conn)
            MIGRATIONS.check(version, "at " + _where(conn))
            if version:
                verify_checksums(conn, "at " + _where(conn))
            if version < MIGRATIONS.latest:
                if admin_url is not None:
                    migrate(admin_url, grant_to=[_current_user(conn)])
                elif allow_unsafe:
                    migrate(self.url)
                else:
                    raise StoreError(
                        f"the sgam schema at {_where(conn)} is at version {version}, this sgam needs "
                        f"{MIGRATIONS.latest}: run `sgam migrate --db ADMIN_URL` as the owner role"
                    )
            if not allow_unsafe:
                check_safe(conn, f"to use {_where(conn)}")

    def schema_version(self) -> int:
        with map_postgres_errors(), self._pool.connection() as conn:
            return installed_version(conn)

    def run_write(
        self, tenant: str, work: Callable[[PostgresWrite], T], context: CallContext = NO_CONTEXT,
    ) -> T:
        check_tenant(tenant)
        prelock: list[int] = []
        delay = 0.002
        attempt = 0
        while True:
            try:
                return self._attempt(tenant, work, prelock, context)
            except LockOrderError as exc:
                prelock = exc.keys
                continue
            except psycopg.Error as exc:
                if not is_retryable(exc) or attempt >= self._retries:
                    raise to_sgam(exc) from exc
            attempt += 1
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 0.25)

    def _attempt(
        self, tenant: str, work: Callable[[PostgresWrite], T], prelock: list[int], context: CallContext,
    ) -> T:
        """One pipeline on the autocommit connection, as a read is: every statement until
        its closing Sync runs in one implicit transaction, which the Sync commits, so a
        write that reads no rows on the way is one round trip with no ``BEGIN`` or
        ``COMMIT`` to send (psycopg's ``transaction()`` inside a pipeline adds both and
        syncs twice). Where the dialect begins a transaction explicitly (Citus), the
        pipeline is wrapped in its ``BEGIN`` and ``COMMIT`` (still one round trip). A statement
        the server refuses aborts the transaction before the Sync. A refusal raised in
        Python (the planner's validation) aborts the transaction on purpose before the
        Sync (``_abandon``): nothing is stored and the connection stays in the pool
        (closing it cost a new server session per refusal: 300 refusals took 4.6 s
        against 0.8 s for 300 writes). A driver error or an interruption closes the
        connection before its pipeline can sync: the server rolls back a transaction
        whose client has gone, and the pool replaces the connection. The context's
        key, if not checked yet, is checked by the pipeline's first statements."""
        key = context.key_unchecked()
        explicit = self.dialect.explicit
        with self._pool.connection() as conn:
            try:
                with conn.pipeline() as pipeline:
                    if explicit:
                        conn.cursor().execute(self.dialect.begin)
                    if key is not None:
                        send_key_check(conn.cursor(binary=True), self.dialect, key)
                    txn = PostgresWrite(
                        conn.cursor(binary=True), tenant, prelock, self.dialect, self._schemas, self._quiet)
                    txn.acting_for = context.acting_for(tenant)
                    try:
                        result = work(txn)
                        mark_acted(txn)
                        txn.finish()
                        if explicit:
                            conn.cursor().execute("COMMIT")
                    except Exception as exc:
                        if isinstance(exc, psycopg.Error) or not _abandon(conn, pipeline):
                            conn.close()
                        raise
                    except BaseException:
                        conn.close()
                        raise
            except BaseException:
                _roll_back(conn)
                raise
            if key is not None:
                key.checked = True
            return result

    def checkpoint_writer(self, tenant: str, context: CallContext = NO_CONTEXT) -> PostgresCheckpointWriter:
        """Each put and each task's writes alone on an autocommit connection (``checkpoints.py``)."""
        return PostgresCheckpointWriter(self._pool, check_tenant(tenant), context, self.dialect)

    @contextmanager
    def read(self, tenant: str, context: CallContext = NO_CONTEXT) -> Iterator[PostgresReader]:
        """A read is one REPEATABLE READ transaction in one pipeline on an autocommit
        connection, its BEGIN and COMMIT sent with its first and last statements: one
        snapshot, and the transaction-local tenant holds for every statement and ends
        with it.
        Everything a read does runs on this one connection: nothing in it takes a second."""
        check_tenant(tenant)
        key = context.key_unchecked()
        with map_postgres_errors(), self._pool.connection() as conn:
            with ExitStack() as scope:
                reader = PostgresReader(conn, tenant, scope, self.dialect, key=key, pool=self._pool,
                                        lanes=self._export_lanes)
                yield reader
            if key is not None and reader.sent_key:
                key.checked = True

    @contextmanager
    def read_one(self, tenant: str, context: CallContext = NO_CONTEXT) -> Iterator[PostgresReader]:
        """Each statement of this read is a pipeline of its own, the tenant set first,
        whose results are taken after its Sync: one round trip, where a statement inside
        the read's pipeline waits once for its rows and once more for the closing Sync.
        The context's key, if not checked yet, is checked first by a statement of its own."""
        check_tenant(tenant)
        self.check_key(context)
        with map_postgres_errors(), self._pool.connection() as conn:
            yield PostgresReader(conn, tenant, ExitStack(), self.dialect, alone=True)

    def check_key(self, context: CallContext) -> None:
        """The context's key, if not checked yet, alone on an autocommit connection."""
        key = context.key_unchecked()
        if key is None:
            return
        with map_postgres_errors(), self._pool.connection() as conn:
            check_key_alone(conn, self.dialect, key)
        key.checked = True

    def purge_residue(self, wait: float = 1.0) -> str | None:
        """Nothing can be done synchronously, so the residue is reported. Erased rows are
        gone from every read path when the erasure commits (MVCC hides them from all later
        snapshots), but their bytes stay in heap and index files until the tables are
        rewritten: ``VACUUM FULL`` as the owner (``sgam compact``), which locks each table
        and costs O(table), so it is never run per erasure. docs/postgres.md has details."""
        return POSTGRES_RESIDUE

    def close(self) -> None:
        self._pool.close()

    def search_index(self) -> PostgresSearchIndex:
        """Full text and pgvector over this backend's tenant-scoped transactions."""
        from .search import PostgresSearchIndex

        return PostgresSearchIndex()

    def claim_jobs(self, owner: str, now: int, lease_until: int, limit: int, tenant: str | None) -> list[JobRow]:
        with map_postgres_errors(), self._pool.connection() as conn, conn.transaction():
            return claim_jobs(conn.cursor(binary=True), owner, now, lease_until, limit, tenant)

    def count_jobs(self, now: int, tenant: str | None) -> int:
        with map_postgres_errors(), self._pool.connection() as conn:
            return count_jobs(conn.cursor(binary=True), now, tenant)

    def due_tenants(self, now: int) -> list[str]:
        with map_postgres_errors(), self._pool.connection() as conn:
            return due_tenants(conn.cursor(binary=True), now)

    def residue(self, tenant: str, needles: Sequence[str]) -> ResidueScan:
        check_tenant(tenant)
        with map_postgres_errors(), self._pool.connection() as conn, conn.transaction():
            cur = conn.cursor(binary=True)
            cur.execute(self.dialect.set_tenant(tenant), prepare=False)
            return ResidueScan(scan.scan_tables(cur, TENANT_TABLES, needles))


ABANDON = "DO $$BEGIN RAISE EXCEPTION 'sgam: unit of work refused, rolled back' USING ERRCODE = 'P0001'; END$$"
"""A statement that fails, sent last in a refused unit of work's pipeline: a failure
aborts the pipeline's implicit transaction, which its Sync then rolls back. Not a
``ROLLBACK``: psycopg answers that command by dropping every prepared statement of the
connection (they are re-prepared on later use), and by then the pipeline's first Sync
would have committed what came before."""


def _abandon(conn: psycopg.Connection[Any], pipeline: psycopg.Pipeline) -> bool:
    """Roll back the pipeline's implicit transaction and leave the connection idle and
    usable; False when it could not be done (the caller closes the connection)."""
    try:
        conn.execute(ABANDON, prepare=False)
        pipeline.sync()
    except psycopg.Error:
        pass  # ABANDON's own failure, or an earlier one: either way the Sync rolls back
    else:
        return False
    try:
        pipeline.sync()  # the first failure can surface before the Sync's own result is read
        if conn.info.transaction_status == TransactionStatus.INERROR:  # an explicit BEGIN (Citus) outlives a Sync
            conn.rollback()  # forgets the statements psycopg counted as prepared in the failed transaction
    except psycopg.Error:
        return False
    return conn.info.transaction_status == TransactionStatus.IDLE


def _roll_back(conn: psycopg.Connection[Any]) -> None:
    """End a unit of work that failed; a connection too broken to roll back is one the
    pool discards on its return, so that error never hides the first one."""
    if conn.closed or conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return
    try:
        conn.rollback()
    except psycopg.Error:
        pass


def _current_user(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_user").fetchone()
    assert row is not None
    return str(row[0])


def _where(conn: psycopg.Connection[Any]) -> str:
    info = conn.info
    return f"database {info.dbname!r} as {info.user!r}"
