"""Where a literal string still appears in a SQLite store: every table (the full-text
indexes' shadow tables and their binary segments included) and the bytes of the database
and WAL files. An operator's proof that an erasure or a purge left nothing behind.

Only what belongs to the tenant is searched for it. Rows of tables with a ``tenant``
column are the tenant's when the column says so, and so is every table of the tenant's
own full-text partitions (``fulltext``: a large tenant's rows, their binary segments
included). The other places (the shared and the unpartitioned full-text indexes, whose
segments mix tenants' terms, and the files) cannot be attributed to a tenant, so they are
searched only when the store holds no other tenant's rows; otherwise they are named as
not searched. The files are read by a child process
(``filebytes``): a second descriptor in this process would drop SQLite's locks.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..._core.errors import StoreError
from .._records import ResidueHit, ResidueScan
from .fulltext import FAMILIES, SHADOW_TABLES

FILE_SUFFIXES = ("", "-wal")
SCANNER = Path(__file__).with_name("filebytes.py")
SCAN_TIMEOUT = 900.0  # seconds: reading a database of many gigabytes, never forever


@dataclass(frozen=True, slots=True)
class _Table:
    name: str
    columns: list[str]

    @property
    def scoped(self) -> bool:
        return "tenant" in self.columns


def scan(conn: sqlite3.Connection, path: str, tenant: str, needles: Sequence[str]) -> ResidueScan:
    """The tenant's rows; the unattributable tables and the files of ``path`` only when no
    other tenant has rows, else they are listed as unscanned."""
    tables = _tables(conn)
    owners = partition_owners(conn) if any(table.name == "full_text_parts" for table in tables) else {}
    hits = [hit for table in tables if table.scoped for hit in _count(conn, table, needles, tenant)]
    hits += [hit for table in tables if owners.get(table.name) == tenant
             for hit in _count(conn, table, needles, None, owned=True)]
    shared = [table for table in tables if not table.scoped and table.name not in owners]
    files = [path + suffix for suffix in FILE_SUFFIXES if Path(path + suffix).is_file()]
    if _others_present(conn, tables, tenant):
        unscanned = [f"table {table.name}" for table in shared] + [f"file {Path(file).name}" for file in files]
        return ResidueScan(hits, unscanned)
    hits += [hit for table in shared for hit in _count(conn, table, needles, None)]
    return ResidueScan(hits + scan_files(files, needles))


def _tables(conn: sqlite3.Connection) -> list[_Table]:
    """Every table with columns of its own (a virtual table's contents are also searched
    through its shadow tables)."""
    names = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    tables = [_Table(name, [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]) for name in names]
    return [table for table in tables if table.columns]


def partition_owners(conn: sqlite3.Connection) -> dict[str, str]:
    """Every table of a tenant's own full-text partition (the FTS5 table and its shadow
    tables), mapped to that tenant."""
    owners: dict[str, str] = {}
    for family_name, part, tenant in conn.execute(
            "SELECT family, part, tenant FROM full_text_parts WHERE tenant IS NOT NULL"):
        base = FAMILIES[family_name].table(part)
        owners.update((name, tenant) for name in (base, *(f"{base}_{shadow}" for shadow in SHADOW_TABLES)))
    return owners


def _others_present(conn: sqlite3.Connection, tables: Sequence[_Table], tenant: str) -> bool:
    return any(conn.execute(f'SELECT 1 FROM "{table.name}" WHERE tenant <> ? LIMIT 1', (tenant,)).fetchone()
               for table in tables if table.scoped)


def _count(conn: sqlite3.Connection, table: _Table, needles: Sequence[str], tenant: str | None,
           *, owned: bool = False) -> list[ResidueHit]:
    """Rows of ``table`` (of ``tenant``, when given) in which any column holds a needle;
    ``owned``: the whole table is the tenant's (a full-text partition)."""
    tests = [f'instr(CAST("{name}" AS BLOB), CAST(? AS BLOB)) > 0' for name in table.columns for _ in needles]
    params: list[object] = [needle for _ in table.columns for needle in needles]
    where = f"({' OR '.join(tests)})"
    if tenant is not None:
        where += " AND tenant = ?"
        params.append(tenant)
    count = conn.execute(f'SELECT count(*) FROM "{table.name}" WHERE {where}', params).fetchone()[0]
    if not count:
        return []
    return [ResidueHit(f"table {table.name}" + ("" if table.scoped or owned else " (not tenant-scoped)"), int(count))]


def scan_files(files: Sequence[str], needles: Sequence[str]) -> list[ResidueHit]:
    """The raw bytes of the database file and its WAL (free pages and old page images),
    counted by a child process that runs ``filebytes`` in isolated mode."""
    if not files:
        return []
    if not sys.executable:
        raise StoreError("cannot read the database files for residue: no Python interpreter to run the scan in")
    request = json.dumps({"files": list(files), "needles": list(needles)})
    try:
        done = subprocess.run([sys.executable, "-I", str(SCANNER)], input=request, capture_output=True, text=True,
                              timeout=SCAN_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StoreError(f"cannot read the database files {', '.join(files)} for residue: {exc}") from None
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise StoreError(f"cannot read the database files {', '.join(files)} for residue: {reason[0]}")
    counts: dict[str, int] = json.loads(done.stdout)
    return [ResidueHit(f"file {Path(file).name}", int(count)) for file, count in counts.items() if count]
