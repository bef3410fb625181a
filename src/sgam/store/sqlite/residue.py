"""What an erasure leaves in a SQLite database outside its live rows, and removing it.

Two places keep copies of deleted rows. ``secure_delete`` zeroes freed pages, so the main
file is clean once the rest is done.

- **FTS5 indexes** record a deletion as a marker in a new segment and keep the erased
  terms in older segments until they merge, so each full-text index is merged whole
  (``optimize``). Each ``optimize`` also leaves one more (empty) level in the index's
  structure record, and past about 2,000 levels FTS5 reports the index as corrupt, so
  when the levels pass ``MAX_FULL_TEXT_LEVELS`` the index is rebuilt from its own
  content instead, which starts a fresh structure. FTS5's ``secure-delete`` option
  (SQLite 3.42+) is not used: it leaves erased terms in the index's page separators
  (``*_idx``), about 3 in 1,000 unique erased terms with SQLite 3.54.
- **The WAL** keeps the pages as they were until it is checkpointed and truncated,
  which waits for every reader that holds an older snapshot. A reader that outlasts the
  wait is reported, never ignored; the next write tries again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

FULL_TEXT_TABLES = ("episodes_fts", "ledger_keys_fts", "document_chunks_fts", "store_items_fts")
MAX_FULL_TEXT_LEVELS = 64
_STRUCTURE_ROW = 10  # FTS5 keeps its structure record at this id of the ``*_data`` table
_STRUCTURE_V2 = b"\xff\x00\x00\x01"


def merge_full_text(conn: sqlite3.Connection) -> None:
    """Merge every full-text index into one segment so no erased term remains; rebuild an
    index whose structure has grown too many levels. Runs inside a write transaction."""
    for table in FULL_TEXT_TABLES:
        command = "rebuild" if full_text_levels(conn, table) >= MAX_FULL_TEXT_LEVELS else "optimize"
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('{command}')")


def full_text_levels(conn: sqlite3.Connection, table: str) -> int:
    """The level count in an FTS5 structure record: a 4-byte cookie, an optional format
    marker, then the count as a SQLite varint. An unreadable record counts as too many,
    which rebuilds the index."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_STRUCTURE_ROW,)).fetchone()
    if row is None or not isinstance(row[0], bytes) or len(row[0]) < 5:
        return 0 if row is None else MAX_FULL_TEXT_LEVELS
    block: bytes = row[0]
    start = 8 if block[4:8] == _STRUCTURE_V2 else 4
    value = 0
    for offset, byte in enumerate(block[start:start + 9]):
        if offset == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return MAX_FULL_TEXT_LEVELS


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
