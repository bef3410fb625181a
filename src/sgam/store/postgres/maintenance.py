"""Owner-run maintenance: ``compact`` rewrites the tables erasures touch so the erased
bytes leave PostgreSQL's table and index files.

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

ERASED_TABLES = (
    "episodes", "operations", "assertions", "ledger_keys", "ledger_key_terms", "episode_vectors", "assertion_vectors",
    "episode_vector_heads", "extractions", "held_candidates", "extraction_jobs",
    "documents", "document_revisions", "document_chunks", "document_vectors",
    "episode_derivations", "consents", "subject_names", "subject_collisions",
)
"""Every table an erasure or expiry deletes or rewrites rows of (``tombstones`` and
``audit_log`` only gain rows, and hold keyed digests)."""


def compact(owner_url: str) -> list[str]:
    """``VACUUM (FULL, ANALYZE)`` each table erasures touch, one at a time (each its own
    transaction, so the lock is held for one table only); returns the tables rewritten."""
    done: list[str] = []
    with map_postgres_errors(), psycopg.connect(owner_url, autocommit=True) as conn:
        for table in ERASED_TABLES:
            found = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
            if found and found[0]:
                conn.execute(sql.SQL("VACUUM (FULL, ANALYZE) {}").format(sql.Identifier(table)))
                done.append(table)
    return done
