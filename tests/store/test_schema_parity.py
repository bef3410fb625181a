"""Both backends keep the same tables with the same columns, except what is listed here.

Read from the checked-in schemas (``test_schema_snapshot.py`` keeps them true), so a
table or column added on one backend only fails here until it is added on the other or
listed below, with the reason.
"""

from __future__ import annotations

from pathlib import Path

from tests.store.test_schema_snapshot import POSTGRES_SNAPSHOT, SQLITE_SNAPSHOT

SQLITE_ONLY_TABLES = {
    "full_text_parts": "the FTS5 partitions episodes and keys are indexed in (PostgreSQL: the tsvector columns "
                       "episodes.search, ledger_keys.search)",
    "full_text_members": "which partition holds each indexed row",
    "full_text_queue": "rows a write changed, indexed before it commits (a trigger cannot name a partition)",
    "full_text_dirty": "partitions an erasure removed rows from, merged before it commits",
    "document_chunks_fts": "FTS5 (PostgreSQL: document_chunks.search)",
    "store_items_fts": "FTS5 (PostgreSQL: store_items.search)",
    "ledger_key_types": "the memory types of each key, for queries by type (PostgreSQL: a partial index)",
    "search_generation": "counts each tenant's vector changes, so the in-process vector scan knows when to reload",
}
POSTGRES_ONLY_TABLES = {
    "episode_counts": "each tenant's episode count, so search chooses its plan without counting",
    "episode_vector_heads": "short prefixes of episode vectors ranked before the exact scan",
    "episode_vector_counts": "a tally of each tenant's vectors, which tells a process its copy is current",
    "ledger_key_terms": "each key's lexemes as rows, an index condition under row-level security (ledger_keys.search "
                        "is not leakproof)",
    "vector_dimensions": "the embedding dimensions allowed an HNSW index (owner-run DDL)",
}
SQLITE_ONLY_COLUMNS = {
    ("assertion_vectors", "vector"): "float32 bytes scanned in process (PostgreSQL: embedding, dims)",
    ("document_vectors", "vector"): "float32 bytes (PostgreSQL: embedding, dims)",
    ("episode_vectors", "vector"): "float32 bytes (PostgreSQL: embedding, dims)",
    ("store_items", "row_id"): "the rowid store_items_fts refers to",
}
POSTGRES_ONLY_COLUMNS = {
    ("assertions", "value_json"): "a generated jsonb copy of the value, for SQL users",
    ("assertion_vectors", "dims"): "pgvector columns: dimension, for the per-dimension HNSW indexes",
    ("assertion_vectors", "embedding"): "pgvector",
    ("document_vectors", "dims"): "pgvector",
    ("document_vectors", "embedding"): "pgvector",
    ("episode_vectors", "dims"): "pgvector",
    ("episode_vectors", "embedding"): "pgvector",
    ("episode_vectors", "episode_id"): "the row's key with the tenant (SQLite: seq, the episode's rowid)",
    ("episode_vectors", "occurred_at"): "episode columns copied beside the vector, so a filtered vector "
                                        "search tests the filter on the vector row",
    ("episode_vectors", "recorded_at"): "copied, as occurred_at",
    ("episode_vectors", "session"): "copied, as occurred_at",
    ("episode_vectors", "speaker"): "copied, as occurred_at",
    ("episodes", "search"): "tsvector (SQLite: episodes_fts)",
    ("document_chunks", "search"): "tsvector (SQLite: document_chunks_fts)",
    ("ledger_keys", "search"): "tsvector (SQLite: ledger_keys_fts)",
    ("store_items", "search"): "tsvector (SQLite: store_items_fts)",
}


def tables(snapshot: Path) -> dict[str, set[str]]:
    """Table → its column names, from a checked-in schema (virtual tables have none)."""
    found: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in snapshot.read_text().splitlines():
        words = line.split()
        if line.startswith("table "):
            current = found.setdefault(words[1], set())
        elif line.startswith("virtual table "):
            found[words[2].rstrip(":")] = set()
            current = None
        elif line.startswith("  column ") and current is not None:
            current.add(words[1])
        elif not line.startswith("  "):
            current = None
    return found


def _only(left: dict[str, set[str]], right: dict[str, set[str]]) -> tuple[set[str], set[tuple[str, str]]]:
    return set(left) - set(right), {(t, c) for t in set(left) & set(right) for c in left[t] - right[t]}


def test_the_snapshots_list_tables_and_columns() -> None:
    sqlite = tables(SQLITE_SNAPSHOT)
    assert {"operations", "assertions", "full_text_parts"} <= set(sqlite)
    assert {"tenant", "subject", "attribute", "valid_from"} <= sqlite["assertions"]


def test_both_backends_have_the_same_tables_and_columns_but_the_listed_ones() -> None:
    sqlite, postgres = tables(SQLITE_SNAPSHOT), tables(POSTGRES_SNAPSHOT)
    assert _only(sqlite, postgres) == (set(SQLITE_ONLY_TABLES), set(SQLITE_ONLY_COLUMNS))
    assert _only(postgres, sqlite) == (set(POSTGRES_ONLY_TABLES), set(POSTGRES_ONLY_COLUMNS))
