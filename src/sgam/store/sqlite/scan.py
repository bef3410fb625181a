"""Where a literal string still appears in a SQLite store: every table (the full-text
indexes' shadow tables and their binary segments included) and the bytes of the database
and WAL files. An operator's proof that an erasure or a purge left nothing behind."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from .._protocol import ResidueHit


def scan_tables(conn: sqlite3.Connection, tenant: str, needles: Sequence[str]) -> list[ResidueHit]:
    """Rows of the tenant (tables with a ``tenant`` column) and, in tables without one
    (full-text indexes and their shadow tables), any row, that contain a needle."""
    hits: list[ResidueHit] = []
    tables = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for table in tables:
        columns = [(row[1], (row[2] or "").upper()) for row in conn.execute(f'PRAGMA table_info("{table}")')]
        if not columns:
            continue  # a virtual table's columns are searched through its shadow tables
        names = [name for name, _ in columns]
        scoped = "tenant" in names
        tests: list[str] = []
        params: list[object] = []
        for name, _ in columns:
            for needle in needles:
                tests.append(f'instr(CAST("{name}" AS BLOB), CAST(? AS BLOB)) > 0')
                params.append(needle)
        where = f"({' OR '.join(tests)})" + (" AND tenant = ?" if scoped else "")
        if scoped:
            params.append(tenant)
        count = conn.execute(f'SELECT count(*) FROM "{table}" WHERE {where}', params).fetchone()[0]
        if count:
            hits.append(ResidueHit(f"table {table}" + ("" if scoped else " (not tenant-scoped)"), int(count)))
    return hits


def scan_files(path: str, needles: Sequence[str]) -> list[ResidueHit]:
    """The raw bytes of the database file and its WAL (free pages and old page images)."""
    hits: list[ResidueHit] = []
    for suffix in ("", "-wal"):
        file = Path(path + suffix)
        if not file.is_file():
            continue
        data = file.read_bytes()
        count = sum(data.count(needle.encode()) for needle in needles)
        if count:
            hits.append(ResidueHit(f"file {file.name}", count))
    return hits
