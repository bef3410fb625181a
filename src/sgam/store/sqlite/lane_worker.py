"""A lane of a SQLite export (``lanes.py``), run as a process of its own: SQLite's
statements in threads of one process contend on SQLite's process-wide locks, in
processes they do not.

Run by its path with the standard library alone (it imports nothing of sgam, so it starts
in a few milliseconds): ``python -I -S lane_worker.py FILE``. It reads frames from
standard input and writes frames to standard output, each an 8-byte length then a pickle:

- ``("begin",)``: begin a read transaction (its snapshot begins with its first read),
  answered ``("ready",)``;
- ``("run", sqls, [(index, params), ...])``: run ``sqls[index]`` with ``params`` for
  each, answering each with ``("rows", rows)``.

A failure is answered ``("error", text)`` and ends the process; so does the end of its
input, the transaction rolled back.
"""

from __future__ import annotations

import pickle
import sqlite3
import struct
import sys
from typing import IO, Any

FRAME = struct.Struct("<Q")


def read_frame(stream: IO[bytes]) -> Any:
    """The next frame's value, None at the end of the stream."""
    head = stream.read(FRAME.size)
    if len(head) < FRAME.size:
        return None
    (size,) = FRAME.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)  # noqa: S301 - frames between sgam and the process it started


def write_frame(stream: IO[bytes], value: Any) -> None:
    body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(FRAME.pack(len(body)))
    stream.write(body)
    stream.flush()


def serve(path: str, requests: IO[bytes], answers: IO[bytes]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        while (request := read_frame(requests)) is not None:
            if request[0] == "begin":
                conn.execute("BEGIN")
                conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
                write_frame(answers, ("ready",))
            else:
                _, sqls, statements = request
                for index, params in statements:
                    write_frame(answers, ("rows", conn.execute(sqls[index], params).fetchall()))
    except Exception as failed:  # noqa: BLE001 - handed to the export, which raises it
        write_frame(answers, ("error", f"{type(failed).__name__}: {failed}"))
    finally:
        conn.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer)
