"""SQLite's lanes (``_sql/lanes.py``): processes of their own (``lane_worker.py``), each
with a connection to the store's file in a read transaction on the read's snapshot.

Processes, not threads: SQLite's statements in threads of one process contend on its
process-wide locks (the usual builds keep memory statistics under one mutex, and
Debian's has no lookaside, so every allocation takes it): two threads took more time
than one and three times its CPU; in processes they run side by side. A page comes back as one value, so what
crosses the pipe is the export's own bytes.

SQLite cannot hand a snapshot to another connection, but in WAL mode a read transaction
keeps the snapshot it began with, and every read transaction begun while no write can
commit begins with the same one. So the lanes take the write lock for a moment on a
connection of their own (``BEGIN IMMEDIATE``, waiting at most ``WAIT`` for a writer),
begin the read's own transaction again and their own, and let the lock go: all hold one
snapshot. ``moved`` tells whether the read's snapshot moved in doing so (another
connection committed since the read began), when what the read read before must be read
again.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import IO, Any

from ..._core.errors import StoreError
from .._sql.lanes import WAIT, Lanes
from .._sql.session import Params, Row
from .lane_worker import read_frame, write_frame

WORKER = Path(__file__).with_name("lane_worker.py")

PIPE = 1 << 20
"""Bytes a lane's answers pipe holds (the Linux default maximum)."""


class FileLanes(Lanes[subprocess.Popen[bytes]]):
    """``lanes`` processes reading the file at ``path`` on one snapshot with the read,
    whose transaction ``begin_again`` ends and begins anew (True: on the snapshot it had).
    None where this Python cannot start itself (a frozen application), where a writer
    holds the file past ``WAIT``, or where the file cannot be written (no write lock to
    take)."""

    def __init__(self, path: str, lanes: int, begin_again: Callable[[], bool]) -> None:
        super().__init__()
        self.moved = False
        if not lanes or getattr(sys, "frozen", False) or not sys.executable:
            return
        try:
            for _ in range(lanes):
                worker = subprocess.Popen([sys.executable, "-I", "-S", str(WORKER), path],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                self._conns.append(worker)
                _widen(worker.stdout)
            self._begin(path, begin_again)
        except (OSError, StoreError):  # no process to start, or one that ended: the read goes on alone
            self.close()
        except BaseException:
            self.close()
            raise

    def _begin(self, path: str, begin_again: Callable[[], bool]) -> None:
        guard = sqlite3.connect(path, isolation_level=None, timeout=WAIT)
        try:
            try:
                guard.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                self.close()
                return
            try:
                self.moved = not begin_again()
                for worker in self._conns:
                    _send(worker, ("begin",))
                for worker in self._conns:
                    _answer(worker)
            finally:
                guard.execute("ROLLBACK")
        finally:
            guard.close()

    def _walk(self, conn: subprocess.Popen[bytes], statements: Sequence[tuple[str, Params]],
              text_as_bytes: bool) -> Generator[list[Row]]:
        """The statements sent at once (each distinct SQL once); the answers read as they
        come, the pipe holding the process back while the caller has not taken them. A
        walk left before its end leaves answers unread: the process is ended."""
        sqls: dict[str, int] = {}
        numbered = [(sqls.setdefault(sql, len(sqls)), params) for sql, params in statements]
        _send(conn, ("run", list(sqls), numbered))
        taken = 0
        try:
            for _ in statements:
                rows: list[Row] = _answer(conn)
                taken += 1
                yield rows
        finally:
            if taken < len(statements):
                conn.kill()

    def _release(self, conn: subprocess.Popen[bytes]) -> None:
        """End of input: the process rolls back and ends (ended if it has not in ``WAIT``)."""
        try:
            if conn.stdin is not None:
                conn.stdin.close()
            conn.wait(WAIT)
        except (OSError, subprocess.TimeoutExpired):
            conn.kill()
            conn.wait()
        finally:
            if conn.stdout is not None:
                conn.stdout.close()


def _widen(pipe: IO[bytes] | None) -> None:
    """A pipe that holds a page (Linux; elsewhere, or past the system's limit, as it is):
    a page crosses in a few writes instead of one per 64 KiB."""
    if pipe is not None and sys.platform == "linux":
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE)


def _send(worker: subprocess.Popen[bytes], request: tuple[Any, ...]) -> None:
    assert worker.stdin is not None
    try:
        write_frame(worker.stdin, request)
    except OSError as lost:
        raise StoreError(f"an export's lane process ended early (exit status {worker.poll()})") from lost


def _answer(worker: subprocess.Popen[bytes]) -> Any:
    assert worker.stdout is not None
    answer = read_frame(worker.stdout)
    if answer is None:
        raise StoreError(f"an export's lane process ended early (exit status {worker.poll()})")
    if answer[0] == "error":
        raise StoreError(f"an export's lane failed: {answer[1]}")
    return answer[1] if answer[0] == "rows" else answer
