"""PostgreSQL's lanes (``_sql/lanes.py``): pooled connections that take up the snapshot
the read exported (``pg_export_snapshot``).

Building a line (its instants' and text's JSON) is the server's work, about three
microseconds a row, which one server process does at a third of the rate ``pg_dump``
copies the same rows out; on lanes, server processes build a table's pages side by side.
What every lane reads is the read's own snapshot: the export is as consistent as one
statement.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.types.string import ByteaBinaryLoader
from psycopg_pool import ConnectionPool, PoolTimeout

from .._sql.dialect import Dialect
from .._sql.lanes import LANES, WAIT, Lanes
from .._sql.session import Params, Row

_SNAPSHOT = re.compile(r"[0-9A-Fa-f]+-[0-9A-Fa-f]+(-[0-9]+)?")
"""What ``pg_export_snapshot()`` returns: it is spliced into ``SET TRANSACTION SNAPSHOT``,
which takes no parameter."""

FLOATS = "SET LOCAL extra_float_digits = 1"
"""Under which a double's text is its shortest exact decimal (PostgreSQL 12 on), the
digits Python writes: the default, which a server or role may have changed. Every
connection that builds export lines takes it up (``portable.py``)."""


class SnapshotLanes(Lanes[psycopg.Connection[Any]]):
    """Pooled connections in REPEATABLE READ transactions on one exported snapshot, the
    tenant and ``FLOATS`` set in each. A pool with no connection to spare within ``WAIT``
    gives fewer lanes (none: the read builds its lines alone); a pool of one connection,
    the read's, has none to give."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]], dialect: Dialect, tenant: str,
                 snapshot: str, lanes: int = LANES) -> None:
        if not _SNAPSHOT.fullmatch(snapshot):
            raise ValueError(f"not a snapshot id: {snapshot!r}")
        super().__init__()
        self._pool = pool
        try:
            for _ in range(min(lanes, pool.max_size - 1)):  # the read holds one of the pool's connections
                try:
                    conn = pool.getconn(timeout=WAIT)
                except PoolTimeout:
                    break
                self._conns.append(conn)
                with conn.pipeline():
                    conn.execute(dialect.snapshot + " READ ONLY")
                    conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")
                    conn.execute(dialect.set_tenant(tenant), prepare=False)
                    conn.execute(FLOATS)
        except BaseException:
            self.close()
            raise

    def _walk(self, conn: psycopg.Connection[Any], statements: Sequence[tuple[str, Params]],
              text_as_bytes: bool) -> Generator[list[Row]]:
        """Each statement sent before the rows of the one before are handed over, so the
        server builds the next page while the caller takes this one."""
        with conn.pipeline():
            sent = _send(conn, statements[0], text_as_bytes) if statements else None
            for index in range(len(statements)):
                assert sent is not None
                rows = sent.fetchall()
                sent = _send(conn, statements[index + 1], text_as_bytes) if index + 1 < len(statements) else None
                yield rows

    def _release(self, conn: psycopg.Connection[Any]) -> None:
        """Its transaction ended and back to the pool (a broken one closed: the pool
        replaces it)."""
        try:
            if conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
                conn.rollback()
        except psycopg.Error:
            conn.close()
        self._pool.putconn(conn)


def _send(conn: psycopg.Connection[Any], statement: tuple[str, Params], text_as_bytes: bool) -> psycopg.Cursor[Any]:
    cursor = conn.cursor(binary=True)
    if text_as_bytes:
        cursor.adapters.register_loader("text", ByteaBinaryLoader)
    cursor.execute(*statement)
    return cursor
