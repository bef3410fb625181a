"""PostgreSQL's own checkpoint statements: a put, a task's pending writes and a resume's
read are each one call of a server function that sets the tenant itself (``migrations/v26.py``),
where the portable statements (``_sql/checkpoints.py``) needed the tenant's set_config
before them, and a statement per write."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._sql.checkpoints import (
    CheckpointAccess,
    CheckpointRecords,
    CheckpointRow,
    CheckpointWriteRow,
    ordered_writes,
)
from .adapters import Blobs, Ints, Texts
from .session import PostgresSession

_PUT = "SELECT sgam_put_checkpoint(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::text[])"
_PUT_WRITES = "SELECT sgam_put_writes(%s, %s, %s, %s, %s, %s, %s::integer[], %s::text[], %s::text[], %s::bytea[])"
_WITH_WRITES = "SELECT * FROM sgam_checkpoint_with_writes(%s, %s, %s, %s)"


class PostgresCheckpointRecords(CheckpointRecords):
    def __init__(self, db: PostgresSession, tenant: str) -> None:
        super().__init__(db, tenant)
        self._pg = db

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> None:
        self._pg.entering(_PUT, (*self._checkpoint_params(row), retention,
                                 Texts(dict.fromkeys(subjects)) if subjects else None))

    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> None:
        """One task's writes in one call; each must have a slot of its own (the saver
        keeps a special channel's last write)."""
        if not rows:
            return
        first = rows[0]
        task = (first.thread_id, first.checkpoint_ns, first.checkpoint_id, first.task_id, first.task_path)
        if len({r.idx for r in rows}) < len(rows) or any(
                (r.thread_id, r.checkpoint_ns, r.checkpoint_id, r.task_id, r.task_path) != task for r in rows):
            super().put_writes(rows)  # not one task's slots: the portable statements, a write each
            return
        self._pg.entering(_PUT_WRITES, (
            self.tenant, first.thread_id, first.checkpoint_ns, first.checkpoint_id, first.task_id, first.task_path,
            Ints(r.idx for r in rows), Texts(r.channel for r in rows), Texts(r.kind for r in rows),
            Blobs(r.body for r in rows)))

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
