"""PostgreSQL's own checkpoint statement: a put registers its thread and stores the
checkpoint in one statement (a data-modifying ``WITH``), one pipeline exchange fewer on
every put than the portable two (``_sql/checkpoints.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from .._sql.checkpoints import PUT_CHECKPOINT, PUT_THREAD, CheckpointAccess, CheckpointRecords, CheckpointRow

_PUT = f"WITH thread AS ({PUT_THREAD}) {PUT_CHECKPOINT}"


class PostgresCheckpointRecords(CheckpointRecords):
    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> None:
        self._db.run(_PUT, (self.tenant, row.thread_id, retention, *self._checkpoint_params(row)))
        self._put_subjects(row.thread_id, subjects)


class PostgresCheckpointAccess(CheckpointAccess):
    def checkpoints(self) -> PostgresCheckpointRecords:
        return PostgresCheckpointRecords(self._db, self.tenant)
