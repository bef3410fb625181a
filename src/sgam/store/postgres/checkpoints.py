"""PostgreSQL's own checkpoint statements: a put, a task's pending writes and a resume's
read are each one call of a server function that sets the tenant itself (see the baseline),
where the portable statements (``_sql/checkpoints.py``) needed the tenant's set_config
before them, and a statement per write.

A put or a task's writes made on its own (``SgamSaver``'s, not inside a larger unit of
work) is also sent on its own (``PostgresCheckpointWriter``): the call alone on an
autocommit connection, which commits it, without the unit of work's pipeline. A
pipeline of one statement costs the client entering and leaving pipeline mode and a
Sync of its own: 62 µs of client CPU per call against 37 µs alone (bench/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from .._context import CallContext
from .._sql.checkpoints import CheckpointAccess, CheckpointRecords, ordered_writes
from ..contract.checkpoints import CheckpointRow, CheckpointWriteRow
from .adapters import Blobs, Ints, Micros, Texts
from .errors import is_retryable, to_sgam
from .session import PostgresSession

_PUT = "SELECT sgam_put_checkpoint(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::text[])"
_PUT_WRITES = "SELECT sgam_put_writes(%s, %s, %s, %s, %s, %s, %s::integer[], %s::text[], %s::text[], %s::bytea[])"
_WITH_WRITES = "SELECT * FROM sgam_checkpoint_with_writes(%s, %s, %s, %s)"


def _put_params(tenant: str, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> tuple[Any, ...]:
    return (tenant, row.thread_id, row.checkpoint_ns, row.checkpoint_id, row.parent_id, row.run_id, row.kind,
            row.body, row.metadata_kind, row.metadata, Micros(row.created_at), retention,
            Texts(dict.fromkeys(subjects)) if subjects else None)


def _writes_params(tenant: str, rows: Sequence[CheckpointWriteRow]) -> tuple[Any, ...] | None:
    """The call's arguments for one task's writes, each in a slot of its own; None for
    rows that are not (the portable statements take those, a write each)."""
    first = rows[0]
    task = (first.thread_id, first.checkpoint_ns, first.checkpoint_id, first.task_id, first.task_path)
    if len({r.idx for r in rows}) < len(rows) or any(
            (r.thread_id, r.checkpoint_ns, r.checkpoint_id, r.task_id, r.task_path) != task for r in rows):
        return None
    return (tenant, *task[:4], first.task_path, Ints(r.idx for r in rows), Texts(r.channel for r in rows),
            Texts(r.kind for r in rows), Blobs(r.body for r in rows))


class PostgresCheckpointRecords(CheckpointRecords):
    def __init__(self, db: PostgresSession, tenant: str) -> None:
        super().__init__(db, tenant)
        self._pg = db

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> None:
        self._pg.entering(_PUT, _put_params(self.tenant, row, retention, subjects))

    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> None:
        """One task's writes in one call; each must have a slot of its own (the saver
        keeps a special channel's last write)."""
        if not rows:
            return
        params = _writes_params(self.tenant, rows)
        if params is None:
            super().put_writes(rows)
            return
        self._pg.entering(_PUT_WRITES, params)

    def checkpoint_with_writes(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None,
    ) -> tuple[CheckpointRow, list[CheckpointWriteRow]] | None:
        rows = self._pg.entering(_WITH_WRITES, (self.tenant, thread_id, checkpoint_ns, checkpoint_id)).fetchall()
        return _assemble(rows)


def _assemble(rows: Sequence[Sequence[Any]]) -> tuple[CheckpointRow, list[CheckpointWriteRow]] | None:
    """The checkpoint and its writes from the rows of ``sgam_checkpoint_with_writes``:
    side, then the checkpoint's columns, where a write has its task_path, task_id and
    channel in the checkpoint's address, its value where the body is and its idx last."""
    head = next((row for row in rows if row[0] == 0), None)
    if head is None:
        return None
    thread_id, checkpoint_ns, checkpoint_id = head[1], head[2], head[3]
    writes = [CheckpointWriteRow(thread_id, checkpoint_ns, checkpoint_id, row[2], int(row[11]), row[3], row[6],
                                 bytes(row[7]), row[1]) for row in rows if row[0] == 1]
    return (CheckpointRow(thread_id, checkpoint_ns, checkpoint_id, head[4], head[5], head[6], bytes(head[7]),
                          head[8], bytes(head[9]), int(head[10])), ordered_writes(writes))


class PostgresCheckpointAccess(CheckpointAccess):
    def checkpoints(self) -> PostgresCheckpointRecords:
        db = self._db
        assert isinstance(db, PostgresSession)  # a PostgreSQL read or unit of work's own
        return PostgresCheckpointRecords(db, self.tenant)


class PostgresCheckpointWriter:
    """``CheckpointWriter`` of one tenant over the backend's pool."""

    __slots__ = ("_context", "_pool", "tenant")

    def __init__(self, pool: ConnectionPool[Any], tenant: str, context: CallContext) -> None:
        self._pool = pool
        self.tenant = tenant
        self._context = context

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> bool:
        return self._alone(_PUT, _put_params(self.tenant, row, retention, subjects))

    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> bool:
        params = _writes_params(self.tenant, rows) if rows else None
        return params is not None and self._alone(_PUT_WRITES, params)

    def _alone(self, sql: str, params: tuple[Any, ...]) -> bool:
        """The call alone, its own transaction: the tenant it sets ends with it. An
        idempotent attempt's mark must commit with what it stores, so that write is left
        to a unit of work, as is a failure a retry may cure (a deadlock, a serialization
        failure: the statement rolled back, nothing is stored). So is a call whose key is
        still to check: the unit of work sends the check with its first statement."""
        if self._context.acting_for(self.tenant) is not None or self._context.key_unchecked() is not None:
            return False
        try:
            with self._pool.connection() as conn:
                conn.cursor(binary=True).execute(sql, params)
        except psycopg.Error as exc:
            if is_retryable(exc):
                return False
            raise to_sgam(exc) from exc
        return True
