"""What an erasure leaves in a SQLite database outside its live rows, and removing it.

Two places keep copies of deleted rows. ``secure_delete`` zeroes freed pages, so the main
file is clean once the rest is done.

- **FTS5 indexes** record a deletion as a marker in a new segment and keep the erased
  terms in older segments until they merge, so each index that lost rows is merged whole
  (``fulltext.merge_dirty``): one partition of one tenant for episodes and keys. FTS5's
  ``secure-delete`` option (SQLite 3.42+, newer than the 3.40 that Python ships here) is
  not used: it leaves erased terms in the index's page separators (``*_idx``), about 3 in
  1,000 unique erased terms with SQLite 3.54.
- **The WAL** keeps the pages as they were until it is checkpointed and truncated,
  which waits for every reader that holds an older snapshot. A reader that outlasts the
  wait is reported, never ignored; the next write tries again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The outcome of checkpointing and truncating the WAL."""

    blocked: bool
    frames: int
    copied: int

    def residue(self) -> str | None:
        """Why erased bytes may remain in the WAL, or None when it was emptied."""
        if not self.blocked:
            return None
        return (
            "the WAL could not be emptied: another connection holds a read transaction on an "
            f"older snapshot ({self.copied} of {self.frames} WAL frames copied back); erased "
            "bytes stay in the -wal file until it ends. The next write retries; "
            "purge_residue(wait=...) waits for it"
        )


def checkpoint(conn: sqlite3.Connection, wait: float, busy_timeout: float) -> Checkpoint:
    """Copy the WAL into the main file and truncate it, waiting up to ``wait`` seconds for
    readers of older snapshots (SQLite's busy handler does the waiting); then restore the
    connection's usual ``busy_timeout``."""
    conn.execute(f"PRAGMA busy_timeout = {int(max(wait, 0.0) * 1000)}")
    try:
        busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    return Checkpoint(bool(busy), int(frames), int(copied))
