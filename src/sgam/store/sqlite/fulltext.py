"""Full-text indexes of episodes and ledger keys, partitioned by tenant and by size, so an
erasure rewrites one small index instead of the file's whole index.

Why partitions: FTS5 records a deletion as a marker in a new segment and keeps the erased
terms in older segments until they merge, so an erasure that must leave no residue merges
the index holding the row (``optimize``). Over one index per file that rewrote every
tenant's terms on every erasure (0.27 s at 100k episodes, 18x the cost at 10k) and held the
file's write lock meanwhile. The SQLite that Python ships here (3.40) has neither FTS5's
``secure-delete`` (3.42) nor ``contentless_delete`` (3.43), and ``secure-delete`` still
leaves erased terms in the page separators (``residue.py``).

So each family's rows live in FTS5 tables of ``PART_ROWS`` rows at most, each holding one
tenant's rows of one range of row ids (``full_text_parts``: a row belongs to the tenant's
partition with the greatest ``first_row`` at or below it, or to its first). An erasure
marks the partitions it touched dirty; ``merge_dirty`` rewrites only those: a bounded
cost that never reads another tenant's terms. An emptied partition is dropped whole.

Triggers cannot name a table chosen at run time, so the triggers on the source tables
only queue the change (``full_text_queue``: row id and tenant, never the text); the unit
of work applies the queue to the partitions before it commits (``flush``), so the index
is exact at every commit, as it was when triggers wrote it directly.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

PART_ROWS = 20_000
"""Rows per partition before the tenant's next row starts a new one. An erasure's merge
rewrites at most this many rows: 20k episodes of 12-30 words merge in about 20-50 ms,
while a keyword search reads one partition per 20k episodes of the tenant."""

MAX_FULL_TEXT_LEVELS = 64
"""Each ``optimize`` leaves one more (empty) level in the index's structure record, and
past about 2,000 levels FTS5 reports the index as corrupt, so an index past this many is
rebuilt from its own content instead, which starts a fresh structure."""

_STRUCTURE_ROW = 10  # FTS5 keeps its structure record at this id of the ``*_data`` table
_STRUCTURE_V2 = b"\xff\x00\x00\x01"


@dataclass(frozen=True, slots=True)
class Family:
    """One partitioned index: which table's rows it holds and how they are tokenised."""

    name: str
    source: str
    row_id: str
    columns: tuple[str, ...]
    values: str
    tokenize: str = "porter unicode61 remove_diacritics 2"

    def table(self, part: int) -> str:
        return f"{self.source}_fts_{part}"


EPISODES = Family("episodes", "episodes", "seq", ("speaker", "text"), "coalesce(speaker, ''), text")
KEYS = Family("keys", "ledger_keys", "key_id", ("subject", "attribute"), "subject, attribute")
FAMILIES = {family.name: family for family in (EPISODES, KEYS)}

SHADOW_TABLES = ("data", "idx", "content", "docsize", "config")
"""The tables FTS5 keeps for a table ``t`` (``t_data`` and so on)."""

UNPARTITIONED = ("document_chunks_fts", "store_items_fts")
"""Full-text indexes kept whole: only their own deletions (document and item changes)
mark them dirty (``full_text_dirty``), so an erasure of episodes never merges them."""


@dataclass(slots=True)
class Part:
    """One partition as ``full_text_parts`` holds it, and whether this flush changed it."""

    part: int
    first_row: int
    last_row: int
    rows: int
    dirty: bool = False
    changed: bool = False


def parts(conn: sqlite3.Connection, family: Family, tenant: str) -> list[Part]:
    """The tenant's partitions of ``family``, by first row."""
    return [Part(*row) for row in conn.execute(
        "SELECT part, first_row, last_row, rows FROM full_text_parts WHERE family = ? AND tenant = ? "
        "ORDER BY first_row", (family.name, tenant))]


def owner(found: Sequence[Part], row_id: int) -> int:
    """The index in ``found`` of the partition that holds ``row_id``."""
    at = bisect.bisect_right([part.first_row for part in found], row_id) - 1
    return max(at, 0)


def tables(conn: sqlite3.Connection, family: Family, tenant: str) -> list[str]:
    """The tenant's partition tables of ``family``, by first row."""
    return [family.table(part.part) for part in parts(conn, family, tenant)]


def count_rows(conn: sqlite3.Connection, family: Family, match: str | None = None) -> int:
    """Rows of every tenant's partitions of ``family`` (those matching ``match``, an FTS5
    query): what the index holds, read from the index itself."""
    total = 0
    for (part,) in conn.execute("SELECT part FROM full_text_parts WHERE family = ?", (family.name,)).fetchall():
        table = family.table(part)
        where, params = (f" WHERE {table} MATCH ?", (match,)) if match is not None else ("", ())
        total += int(conn.execute(f"SELECT count(*) FROM {table}{where}", params).fetchone()[0])
    return total


def flush(conn: sqlite3.Connection) -> None:
    """Apply the queued changes to the partitions (inside the unit of work, before it
    commits): removals first, then additions read from the source rows as they are now."""
    groups = conn.execute("SELECT DISTINCT family, tenant FROM full_text_queue").fetchall()
    for family_name, tenant in groups:
        family = FAMILIES[family_name]
        found = parts(conn, family, tenant)
        dropped = _ids(conn, family, tenant, "drop")
        added = _ids(conn, family, tenant, "add")
        if dropped and found:
            _drop(conn, family, found, dropped)
        if added:
            _add(conn, family, tenant, found, added)
        conn.executemany(
            "UPDATE full_text_parts SET first_row = ?, last_row = ?, rows = ?, dirty = max(dirty, ?) WHERE part = ?",
            [(part.first_row, part.last_row, part.rows, int(part.dirty), part.part) for part in found if part.changed])
    conn.execute("DELETE FROM full_text_queue")


def _ids(conn: sqlite3.Connection, family: Family, tenant: str, change: str) -> list[int]:
    return [int(row[0]) for row in conn.execute(
        "SELECT row_id FROM full_text_queue WHERE family = ? AND tenant = ? AND change = ? ORDER BY row_id",
        (family.name, tenant, change))]


def _drop(conn: sqlite3.Connection, family: Family, found: list[Part], row_ids: list[int]) -> None:
    for at, chunk in _by_part(found, row_ids):
        part = found[at]
        gone = conn.executemany(f"DELETE FROM {family.table(part.part)} WHERE rowid = ?", [(row,) for row in chunk])
        part.rows -= max(gone.rowcount, 0)
        part.dirty = part.changed = True


def _add(conn: sqlite3.Connection, family: Family, tenant: str, found: list[Part], row_ids: list[int]) -> None:
    """Each row joins the partition that owns its id; past the last partition's size, a
    row after every row it holds starts a new one. Rows whose source row is gone (added
    and removed in one unit of work) are skipped by the join."""
    groups: dict[int, list[int]] = {}
    for row_id in row_ids:
        if not found or (row_id > found[-1].last_row and found[-1].rows >= PART_ROWS):
            found.append(_create(conn, family, tenant, row_id))
        at = owner(found, row_id)
        part = found[at]
        part.rows += 1  # counted now so the batch itself fills partitions; corrected below
        part.changed = True
        part.first_row = min(part.first_row, row_id) if at == 0 else part.first_row
        part.last_row = max(part.last_row, row_id)
        groups.setdefault(at, []).append(row_id)
    for at, chunk in groups.items():
        part = found[at]
        stored = conn.executemany(
            f"INSERT INTO {family.table(part.part)} (rowid, {', '.join(family.columns)}) "
            f"SELECT {family.row_id}, {family.values} FROM {family.source} WHERE {family.row_id} = ?",
            [(row_id,) for row_id in chunk])
        part.rows -= len(chunk) - max(stored.rowcount, 0)


def _create(conn: sqlite3.Connection, family: Family, tenant: str, first_row: int) -> Part:
    part = int(conn.execute(
        "INSERT INTO full_text_parts (family, tenant, first_row, last_row, rows, dirty) VALUES (?, ?, ?, ?, 0, 0) "
        "RETURNING part", (family.name, tenant, first_row, first_row)).fetchone()[0])
    conn.execute(f"CREATE VIRTUAL TABLE {family.table(part)} USING fts5("
                 f"{', '.join(family.columns)}, tokenize = '{family.tokenize}')")
    return Part(part, first_row, first_row, 0)


def _by_part(found: Sequence[Part], row_ids: Sequence[int]) -> Iterator[tuple[int, list[int]]]:
    groups: dict[int, list[int]] = {}
    for row_id in row_ids:
        groups.setdefault(owner(found, row_id), []).append(row_id)
    yield from groups.items()


def merge_dirty(conn: sqlite3.Connection) -> None:
    """Rewrite every index that lost rows since the last merge so no erased term remains:
    a partition merged into one segment (rebuilt once its structure has too many levels),
    or dropped whole once empty; the unpartitioned indexes likewise when marked dirty."""
    dirty = conn.execute("SELECT part, family, rows FROM full_text_parts WHERE dirty = 1").fetchall()
    for part, family_name, rows in dirty:
        table = FAMILIES[family_name].table(part)
        if rows <= 0:
            conn.execute(f"DROP TABLE {table}")
            conn.execute("DELETE FROM full_text_parts WHERE part = ?", (part,))
            continue
        _merge(conn, table)
        conn.execute("UPDATE full_text_parts SET dirty = 0 WHERE part = ?", (part,))
    for (name,) in conn.execute("SELECT name FROM full_text_dirty").fetchall():
        if name in UNPARTITIONED:
            _merge(conn, name)
    conn.execute("DELETE FROM full_text_dirty")


def merge_every(conn: sqlite3.Connection) -> None:
    """Merge every FTS5 index of the file whole: a schema from before the partitions."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                "AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5(%' ORDER BY name").fetchall():
        _merge(conn, name)


def _merge(conn: sqlite3.Connection, table: str) -> None:
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
