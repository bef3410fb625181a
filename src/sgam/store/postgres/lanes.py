"""One read's snapshot on more connections than its own: an export has the server build a
big table's lines in several processes at once, each page on a connection that took up
the snapshot the read exported (``pg_export_snapshot``), and takes the pages back in order.

Building a line (its instants' and text's JSON) is the server's work, about three
microseconds a row, which one server process does at a third of the rate ``pg_dump``
copies the same rows out. With lanes, the pages of a table are built side by side while
the caller writes the page before them; each lane holds at most ``AHEAD`` pages built, so
memory stays a few pages whatever the table's size. What every lane reads is the read's
own snapshot: the export is as consistent as one statement.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.types.string import ByteaBinaryLoader
from psycopg_pool import ConnectionPool, PoolTimeout

from .._sql.dialect import Dialect
from .._sql.session import Params, Row

LANES = 2
"""Connections building pages at once unless the backend says otherwise
(``export_lanes``). Two keep a server of two cores busy beside the process writing the
file; on such a server more wait for the same cores."""

WAIT = 1.0
"""Seconds to wait for a free pooled connection for a lane: a pool in use gives an export
fewer lanes (none: the read builds its lines alone), never a stalled one. A pool of one
connection, the read's, has none to give."""

AHEAD = 2
"""Pages a lane holds built while the caller has not taken them yet."""

POLL = 0.1
"""Seconds between a lane's looks at whether the caller stopped taking pages."""

_SNAPSHOT = re.compile(r"[0-9A-Fa-f]+-[0-9A-Fa-f]+(-[0-9]+)?")
"""What ``pg_export_snapshot()`` returns: it is spliced into ``SET TRANSACTION SNAPSHOT``,
which takes no parameter."""


class SnapshotLanes:
    """Pooled connections in REPEATABLE READ transactions on one exported snapshot, the
    tenant set in each, until ``close``."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]], dialect: Dialect, tenant: str,
                 snapshot: str, lanes: int = LANES) -> None:
        if not _SNAPSHOT.fullmatch(snapshot):
            raise ValueError(f"not a snapshot id: {snapshot!r}")
        self._pool = pool
        self._conns: list[psycopg.Connection[Any]] = []
        self._walking: list[tuple[threading.Event, list[threading.Thread]]] = []
        """The stop signal and threads of each walk begun (``pages``) and not yet ended."""
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
        except BaseException:
            self.close()
            raise

    @property
    def count(self) -> int:
        return len(self._conns)

    def pages(self, statements: Sequence[tuple[str, Params]], *, text_as_bytes: bool = True) -> Iterator[list[Row]]:
        """The rows of each statement (its own SQL in psycopg's spelling; ``text_as_bytes``:
        text loaded as the UTF-8 bytes the server sent, which an export writes as they
        are), in the order given: statement ``i`` runs on lane ``i`` modulo the lanes, while
        the caller takes the ones before it."""
        lanes = len(self._conns)
        built: list[queue.Queue[list[Row] | BaseException]] = [queue.Queue(maxsize=AHEAD) for _ in range(lanes)]
        stop = threading.Event()
        workers = [threading.Thread(target=_build, name=f"sgam-lane-{lane}", daemon=True,
                                    args=(conn, statements[lane::lanes], text_as_bytes, built[lane], stop))
                   for lane, conn in enumerate(self._conns)]
        walk = (stop, workers)
        self._walking.append(walk)
        for worker in workers:
            worker.start()
        try:
            for index in range(len(statements)):
                page = built[index % lanes].get()
                if isinstance(page, BaseException):
                    raise page
                yield page
        finally:
            _end(*walk)
            if walk in self._walking:
                self._walking.remove(walk)

    def close(self) -> None:
        """End each lane's transaction and give its connection back (a broken one is
        closed: the pool replaces it)."""
        walks, self._walking = self._walking, []
        for walk in walks:  # a walk its caller dropped unfinished: its threads use the connections
            _end(*walk)
        conns, self._conns = self._conns, []
        for conn in conns:
            try:
                if conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
                    conn.rollback()
            except psycopg.Error:
                conn.close()
            self._pool.putconn(conn)


def _end(stop: threading.Event, workers: list[threading.Thread]) -> None:
    stop.set()
    for worker in workers:
        if worker.is_alive():
            worker.join()


def _build(conn: psycopg.Connection[Any], statements: Sequence[tuple[str, Params]], text_as_bytes: bool,
           built: queue.Queue[list[Row] | BaseException], stop: threading.Event) -> None:
    """A lane's thread: each statement sent before the rows of the one before are handed
    over, so the server builds the next page while the caller takes this one."""

    def hand_over(item: list[Row] | BaseException) -> bool:
        while not stop.is_set():
            try:
                built.put(item, timeout=POLL)
                return True
            except queue.Full:
                continue
        return False

    try:
        with conn.pipeline():
            sent = _send(conn, statements[0], text_as_bytes) if statements else None
            for index in range(len(statements)):
                assert sent is not None
                rows = sent.fetchall()
                sent = _send(conn, statements[index + 1], text_as_bytes) if index + 1 < len(statements) else None
                if not hand_over(rows):
                    return
    except BaseException as failed:  # noqa: BLE001 - the caller raises it in its own thread
        hand_over(failed)


def _send(conn: psycopg.Connection[Any], statement: tuple[str, Params], text_as_bytes: bool) -> psycopg.Cursor[Any]:
    cursor = conn.cursor(binary=True)
    if text_as_bytes:
        cursor.adapters.register_loader("text", ByteaBinaryLoader)
    cursor.execute(*statement)
    return cursor
