"""Where a literal string still appears in the tenant's rows of a PostgreSQL store: every
column of every tenant table (generated full-text and vector columns included), read
under the tenant's row-level security. Dead tuples and WAL are outside what the
application role can read: docs/postgres.md says how the owner clears and checks them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from .._records import ResidueHit

Cursor = psycopg.Cursor[tuple[Any, ...]]


def scan_tables(cur: Cursor, tables: Sequence[str], needles: Sequence[str]) -> list[ResidueHit]:
    hits: list[ResidueHit] = []
    for table in tables:
        columns = cur.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = %s ORDER BY ordinal_position", (table,)).fetchall()
        # bytea (serialized checkpoints) as text is hex: search its bytes for the needle's UTF-8
        tests = [
            sql.SQL("position(convert_to(%s, 'UTF8') in {}) > 0" if kind == "bytea" else "strpos({}::text, %s) > 0")
            .format(sql.Identifier(column))
            for column, kind in columns for _ in needles
        ]
        if not tests:
            continue
        params = [needle for _ in columns for needle in needles]
        query = sql.SQL("SELECT count(*) FROM {} WHERE {}").format(sql.Identifier(table), sql.SQL(" OR ").join(tests))
        row = cur.execute(query, params).fetchone()
        if row and row[0]:
            hits.append(ResidueHit(f"table {table}", int(row[0])))
    return hits
