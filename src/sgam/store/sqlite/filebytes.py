"""Count literal byte strings in files, run as a child process of the one that has the
database open.

Closing any descriptor of a file drops every POSIX advisory lock the process holds on it,
so a process that reads the database or its WAL through a second descriptor loses the
locks its SQLite connection relies on: the next process to open and close the database
believes it is the last user, checkpoints, deletes the ``-wal`` and ``-shm`` files, and
later writes go to an orphaned WAL. This module's descriptors live and die in another
process, whose locks are its own. It imports only the standard library, so it runs as a
file under ``python -I`` (no site, no environment, no package import).

Protocol: a JSON object ``{"files": [path, ...], "needles": [text, ...]}`` on standard
input; a JSON object ``{path: count}`` on standard output for every file that exists.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

CHUNK = 1 << 24  # 16 MiB: bounded memory however large the database


def count_in_file(path: str, needles: Sequence[bytes]) -> int:
    """Occurrences of the needles in the file (overlapping ones each), read in chunks; an
    occurrence that spans two chunks is counted once, in the chunk where it starts."""
    keep = max((len(needle) for needle in needles), default=1) - 1
    total = 0
    tail = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            window = tail + chunk
            limit = max(len(window) - keep, 0)  # starts from here on are counted with the next chunk
            total += sum(_starts_before(window, needle, limit) for needle in needles)
            tail = window[limit:]
    return total + sum(_starts_before(tail, needle, len(tail)) for needle in needles)


def _starts_before(data: bytes, needle: bytes, limit: int) -> int:
    count, start = 0, data.find(needle)
    while 0 <= start < limit:
        count, start = count + 1, data.find(needle, start + 1)
    return count


def count_files(files: Sequence[str], needles: Sequence[str]) -> dict[str, int]:
    encoded = [needle.encode() for needle in needles if needle]
    return {path: count_in_file(path, encoded) for path in files if os.path.isfile(path)}


def main() -> None:
    request = json.load(sys.stdin)
    json.dump(count_files(list(request["files"]), list(request["needles"])), sys.stdout)


if __name__ == "__main__":
    main()
