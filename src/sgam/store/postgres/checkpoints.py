"""A checkpoint put or a task's pending writes made on its own (``SgamSaver``'s, not
inside a larger unit of work): the portable statements (``_sql/checkpoints.py``) in a
pipeline of their own on an autocommit connection, the tenant set first, committed by
the pipeline's Sync (or the dialect's ``COMMIT``): one round trip, without the unit of
work around them (its schema lock, its lookups, its retries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from .._context import CallContext
from .._sql.checkpoints import CheckpointRecords
from .._sql.dialect import Dialect
from ..contract.checkpoints import CheckpointRow, CheckpointWriteRow
from .errors import is_retryable, to_sgam
from .session import PostgresSession


class PostgresCheckpointWriter:
    """``CheckpointWriter`` of one tenant over the backend's pool."""

    __slots__ = ("_context", "_dialect", "_pool", "tenant")

    def __init__(self, pool: ConnectionPool[Any], tenant: str, context: CallContext, dialect: Dialect) -> None:
        self._pool = pool
        self.tenant = tenant
        self._context = context
        self._dialect = dialect

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> bool:
        return self._alone(lambda records: records.put_checkpoint(row, retention, subjects))

    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> bool:
        return self._alone(lambda records: records.put_writes(rows))

    def _alone(self, work: Callable[[CheckpointRecords], None]) -> bool:
        """``work`` in a transaction of its own: the tenant it sets ends with it. An
        idempotent attempt's mark must commit with what it stores, so that write is left
        to a unit of work, as is a failure a retry may cure (a deadlock, a serialization
        failure: the transaction rolled back, nothing is stored). So is a call whose key
        is still to check: the unit of work sends the check with its first statement."""
        if self._context.acting_for(self.tenant) is not None or self._context.key_unchecked() is not None:
            return False
        explicit = self._dialect.explicit
        try:
            with self._pool.connection() as conn:
                try:
                    with conn.pipeline():
                        cur = conn.cursor(binary=True)
                        if explicit:
                            cur.execute(self._dialect.begin)
                        cur.execute(self._dialect.set_tenant(self.tenant), prepare=False)
                        work(CheckpointRecords(PostgresSession(cur, self._dialect), self.tenant))
                        if explicit:
                            cur.execute("COMMIT")
                finally:
                    if not conn.closed and conn.info.transaction_status != TransactionStatus.IDLE:
                        conn.rollback()
        except psycopg.Error as exc:
            if is_retryable(exc):
                return False
            raise to_sgam(exc) from exc
        return True
