"""Erasure reaches every revision, chunk and vector of a document, on both backends; on
SQLite the bytes also leave the file and its WAL."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam import Memory, NotFoundError
from tests.conftest import HashingEmbedder, Store

T = "acme"
SECRET = "SECRET-DOCUMENT-TEXT-7e1d42"
TABLES = ("documents", "document_revisions", "document_chunks", "document_vectors")


def counts(db: Store) -> dict[str, int]:
    return {table: db.count(f"SELECT count(*) FROM {table}") for table in TABLES}


def test_erase_removes_every_revision_and_index_entry(store: Store, hashing: HashingEmbedder) -> None:
    with Memory(store.url, embedder=hashing) as memory:
        docs = memory.documents
        docs.create(T, "/memories/keep.md", "ordinary notes\n" * 30)
        docs.create(T, "/memories/s.md", f"first {SECRET}\n" + f"{SECRET}\n" * 20)
        docs.str_replace(T, "/memories/s.md", f"first {SECRET}", f"changed {SECRET}")
        docs.rename(T, "/memories/s.md", "/memories/moved.md")
        docs.create(T, "/memories/s.md", f"a later document at the same path {SECRET}\n")
        docs.delete(T, "/memories/s.md")
        assert docs.search(T, SECRET.lower().replace("-", " "), limit=5)
        before = counts(store)
        assert before["document_vectors"] > 0
        removed = docs.erase(T, "/memories/s.md")
        assert removed == 3 + 2
        assert docs.get(T, "/memories/moved.md") is None
        with pytest.raises(NotFoundError):
            docs.history(T, "/memories/s.md")
        with pytest.raises(NotFoundError):
            docs.erase(T, "/memories/s.md")
        assert {h.path for h in docs.search(T, "secret document text", limit=5)} <= {"/memories/keep.md"}
        assert [d.path for d in docs.all(T)] == ["/memories/keep.md"]
        after = counts(store)
        kept = ("SELECT count(*) FROM document_revisions WHERE content LIKE '%" + SECRET + "%'")
        assert store.count(kept) == 0
        assert store.count("SELECT count(*) FROM document_chunks WHERE text LIKE '%SECRET%'") == 0
        assert after["documents"] == 1 and after["document_revisions"] == 1
        assert store.count("SELECT count(*) FROM audit_log WHERE action = 'erase_document'") == 1
        if store.backend == "sqlite":
            path = Path(store.admin)
            data = path.read_bytes() + (Path(f"{path}-wal").read_bytes() if Path(f"{path}-wal").exists() else b"")
            assert SECRET.encode() not in data
