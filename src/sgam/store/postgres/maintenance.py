"""Owner-run maintenance: ``compact`` rewrites every table that holds tenant rows so the
erased bytes leave PostgreSQL's table and index files.

An erasure's rows vanish from every snapshot when it commits, but their bytes stay as dead
tuples; plain ``VACUUM`` only marks that space reusable, so most of it stays readable on
disk until new rows overwrite it. ``VACUUM FULL`` writes each table and its indexes
(TOAST included) anew and unlinks the old files. It needs the owner (or MAINTAIN) and
holds an ACCESS EXCLUSIVE lock on each table while it is rewritten, so it is an operator's
command, never run per erasure. docs/postgres.md says what each clean-up removes.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from .errors import map_postgres_errors
from .migrations import TENANT_TABLES


def compact(owner_url: str) -> list[str]:
    """``VACUUM (FULL, ANALYZE)`` each tenant table, one at a time (each its own
    transaction, so the lock is held for one table only); returns the tables rewritten.
    The tables are those row-level security guards (``TENANT_TABLES``): every table that
    can hold what an erasure or expiry removes is a tenant table, and a list kept apart
    from that one would miss the next table added. A table's indexes (the LangGraph
    items' search index among them) are rewritten with it."""
    done: list[str] = []
    with map_postgres_errors(), psycopg.connect(owner_url, autocommit=True) as conn:
        for table in TENANT_TABLES:
            found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
            if found and found[0]:
                conn.execute(sql.SQL("VACUUM (FULL, ANALYZE) {}").format(sql.Identifier(table)))
                done.append(table)
    return done
