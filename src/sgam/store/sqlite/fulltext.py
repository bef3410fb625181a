"""Full-text indexes of episodes and ledger keys, partitioned by size (and a large tenant's
by tenant), so an erasure rewrites one small index instead of the file's whole index.

Why partitions: FTS5 records a deletion as a marker in a new segment and keeps the erased
terms in older segments until they merge, so an erasure that must leave no residue merges
the index holding the row (``optimize``). Over one index per file that rewrote every
tenant's terms on every erasure (2.3 s p50 at 1M episodes, 10x the cost at 100k) and held
the file's write lock meanwhile. The SQLite that Python ships here (3.40) has neither
FTS5's ``secure-delete`` (3.42) nor ``contentless_delete`` (3.43), and ``secure-delete``
still leaves erased terms in the page separators (``residue.py``).

So each family's rows live in FTS5 tables of about ``PART_ROWS`` rows (``full_text_parts``),
each holding one range of row ids:

- a tenant's first ``OWN_AFTER`` rows go to the shared partitions (``tenant`` NULL), which
  hold every small tenant's rows: tables of every tenant's own cost twelve schema objects
  and about 40 kB per tenant, and a file of a thousand small tenants took 40x as long to
  fill;
- from then on the tenant's rows go to partitions of its own, so a large tenant's erasure
  merges one partition of its own rows and never reads another tenant's terms.

A row belongs to the tenant's own partition with the greatest ``first_row`` at or below it;
a row below the first (or of a tenant without one) to the shared partition found the same
way among the shared ones (the first when below all). ``full_text_members`` names the
shared partitions that hold a tenant's rows, so a search reads only those. An erasure
marks the partitions it touched dirty; ``merge_dirty`` rewrites only those, and drops an
emptied partition whole.

Triggers cannot name a table chosen at run time, so the triggers on the source tables
only queue the change (``full_text_queue``: row id and tenant, never the text); the unit
of work applies the queue to the partitions before it commits (``flush``), so the index
is exact at every commit, as it was when triggers wrote it directly.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

PART_ROWS = 20_000
"""Rows per partition before the next row starts a new one. An erasure's merge rewrites
at most about this many rows: 20k episodes of 12-30 words merge in about 20-50 ms, while a
keyword search reads one partition per 20k episodes of the tenant."""

OWN_AFTER = 2_000
"""Rows of a tenant in the shared partitions before its next rows go to its own."""

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
    """One partition as ``full_text_parts`` holds it, and what this flush changed."""

    part: int
    first_row: int
    last_row: int
    rows: int
    dirty: bool = False
    changed: bool = False
    members: dict[str, int] = field(default_factory=dict)
    """Shared partitions: rows added (+) or removed (-) per tenant by this flush."""


@dataclass(slots=True)
class Layout:
    """A tenant's own partitions and the family's shared ones, by first row."""

    family: Family
    tenant: str
    own: list[Part]
    shared: list[Part]
    pooled: int
    """The tenant's rows in shared partitions."""

    def holder(self, row_id: int) -> Part | None:
        """The partition a row belongs to, None while there is none for it."""
        if self.own and row_id >= self.own[0].first_row:
            return self.own[_last_at_or_below(self.own, row_id)]
        return self.shared[_last_at_or_below(self.shared, row_id)] if self.shared else None

    def place(self, conn: sqlite3.Connection, row_id: int) -> Part:
        """The partition a new row joins, created when the last one is full (a row after
        every row it holds) or when the tenant's shared rows reach ``OWN_AFTER``."""
        if self.own and row_id >= self.own[0].first_row:
            last = self.own[-1]
            if row_id > last.last_row and last.rows >= PART_ROWS:
                self.own.append(_create(conn, self.family, self.tenant, row_id))
            return self.own[_last_at_or_below(self.own, row_id)]
        after_shared = not self.shared or row_id > self.shared[-1].last_row
        if not self.own and self.pooled >= OWN_AFTER and after_shared:
            self.own.append(_create(conn, self.family, self.tenant, row_id))
            return self.own[0]
        if after_shared and (not self.shared or self.shared[-1].rows >= PART_ROWS):
            self.shared.append(_create(conn, self.family, None, row_id))
        part = self.shared[_last_at_or_below(self.shared, row_id)]
        self.pooled += 1
        return part


def _last_at_or_below(found: Sequence[Part], row_id: int) -> int:
    return max(bisect.bisect_right([part.first_row for part in found], row_id) - 1, 0)


def layout(conn: sqlite3.Connection, family: Family, tenant: str) -> Layout:
    """Where the tenant's rows of ``family`` are, and where its next ones go."""
    rows = conn.execute(
        "SELECT part, first_row, last_row, rows, tenant FROM full_text_parts "
        "WHERE family = ? AND (tenant = ? OR tenant IS NULL) ORDER BY first_row", (family.name, tenant)).fetchall()
    pooled = conn.execute("SELECT coalesce(sum(rows), 0) FROM full_text_members WHERE family = ? AND tenant = ?",
                          (family.name, tenant)).fetchone()[0]
    return Layout(family, tenant, [Part(*row[:4]) for row in rows if row[4] is not None],
                  [Part(*row[:4]) for row in rows if row[4] is None], int(pooled))


def tables(conn: sqlite3.Connection, family: Family, tenant: str) -> list[tuple[str, bool]]:
    """The partition tables that hold the tenant's rows, each with whether it is the
    tenant's own (else shared: its matches must be filtered by tenant)."""
    found = conn.execute(
        "SELECT part, 1 FROM full_text_parts WHERE family = ? AND tenant = ? "
        "UNION ALL SELECT part, 0 FROM full_text_members WHERE family = ? AND tenant = ? AND rows > 0 ORDER BY 1",
        (family.name, tenant, family.name, tenant)).fetchall()
    return [(family.table(part), bool(own)) for part, own in found]


def count_rows(conn: sqlite3.Connection, family: Family, match: str | None = None) -> int:
    """Rows of every partition of ``family`` (those matching ``match``, an FTS5 query):
    what the index holds, read from the index itself."""
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
        plan = layout(conn, FAMILIES[family_name], tenant)
        _drop(conn, plan, _ids(conn, plan, "drop"))
        _add(conn, plan, _ids(conn, plan, "add"))
        changed = [part for part in plan.own + plan.shared if part.changed]
        conn.executemany(
            "UPDATE full_text_parts SET first_row = ?, last_row = ?, rows = ?, dirty = max(dirty, ?) WHERE part = ?",
            [(part.first_row, part.last_row, part.rows, int(part.dirty), part.part) for part in changed])
        conn.executemany(
            "INSERT INTO full_text_members (family, tenant, part, rows) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (family, tenant, part) DO UPDATE SET rows = rows + excluded.rows",
            [(family_name, member, part.part, delta) for part in changed for member, delta in part.members.items()])
    conn.execute("DELETE FROM full_text_queue")


def _ids(conn: sqlite3.Connection, plan: Layout, change: str) -> list[int]:
    return [int(row[0]) for row in conn.execute(
        "SELECT row_id FROM full_text_queue WHERE family = ? AND tenant = ? AND change = ? ORDER BY row_id",
        (plan.family.name, plan.tenant, change))]


def _drop(conn: sqlite3.Connection, plan: Layout, row_ids: list[int]) -> None:
    groups: dict[int, tuple[Part, list[int]]] = {}
    for row_id in row_ids:
        part = plan.holder(row_id)
        if part is not None:
            groups.setdefault(part.part, (part, []))[1].append(row_id)
    for part, chunk in groups.values():
        gone = max(conn.executemany(f"DELETE FROM {plan.family.table(part.part)} WHERE rowid = ?",
                                    [(row,) for row in chunk]).rowcount, 0)
        part.rows -= gone
        part.dirty = part.changed = True
        if part in plan.shared:
            part.members[plan.tenant] = part.members.get(plan.tenant, 0) - gone
            plan.pooled -= gone


def _add(conn: sqlite3.Connection, plan: Layout, row_ids: list[int]) -> None:
    """Each row joins the partition ``Layout.place`` names; rows whose source row is gone
    (added and removed in one unit of work) are skipped by the join and uncounted."""
    groups: dict[int, tuple[Part, list[int]]] = {}
    for row_id in row_ids:
        part = plan.place(conn, row_id)
        part.rows += 1  # counted now so the batch itself fills partitions; corrected below
        part.changed = True
        part.first_row = min(part.first_row, row_id)
        part.last_row = max(part.last_row, row_id)
        groups.setdefault(part.part, (part, []))[1].append(row_id)
    family = plan.family
    for part, chunk in groups.values():
        stored = max(conn.executemany(
            f"INSERT INTO {family.table(part.part)} (rowid, {', '.join(family.columns)}) "
            f"SELECT {family.row_id}, {family.values} FROM {family.source} WHERE {family.row_id} = ?",
            [(row_id,) for row_id in chunk]).rowcount, 0)
        part.rows -= len(chunk) - stored
        if part in plan.shared:
            part.members[plan.tenant] = part.members.get(plan.tenant, 0) + stored
            plan.pooled -= len(chunk) - stored


def _create(conn: sqlite3.Connection, family: Family, tenant: str | None, first_row: int) -> Part:
    part = int(conn.execute(
        "INSERT INTO full_text_parts (family, tenant, first_row, last_row, rows, dirty) VALUES (?, ?, ?, ?, 0, 0) "
        "RETURNING part", (family.name, tenant, first_row, first_row)).fetchone()[0])
    conn.execute(f"CREATE VIRTUAL TABLE {family.table(part)} USING fts5("
                 f"{', '.join(family.columns)}, tokenize = '{family.tokenize}')")
    return Part(part, first_row, first_row, 0)


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
            conn.execute("DELETE FROM full_text_members WHERE part = ?", (part,))
            continue
        _merge(conn, table)
        conn.execute("UPDATE full_text_parts SET dirty = 0 WHERE part = ?", (part,))
    conn.execute("DELETE FROM full_text_members WHERE rows <= 0")
    for (name,) in conn.execute("SELECT name FROM full_text_dirty").fetchall():
        if name in UNPARTITIONED:
            _merge(conn, name)
    conn.execute("DELETE FROM full_text_dirty")


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
