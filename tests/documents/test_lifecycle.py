"""Documents inside the lifecycle, on both backends: a revision is kept for its class's
ttl after it was recorded; reads never show one past its deadline, purge or no purge;
the purge removes revisions, chunks and vectors (the residue scanner finds nothing);
erasing an episode reaches the revisions that name it and those built on them."""

from __future__ import annotations

import pytest

from sgam import Memory, NotFoundError
from sgam.documents import Provenance
from tests.conftest import HashingEmbedder, ManualClock, Store

T = "acme"
PATH = "/memories/notes.md"
TABLES = ("documents", "document_revisions", "document_chunks", "document_vectors")


def counts(db: Store) -> dict[str, int]:
    return {table: db.count(f"SELECT count(*) FROM {table}") for table in TABLES}


def test_reads_never_show_an_expired_revision_or_document(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        docs = memory.documents
        memory.retention(T, "scratch", "P1D")
        docs.create(T, PATH, "first draft quokka\n", retention="scratch")
        docs.create(T, "/memories/kept.md", "kept for good\n")
        clock.advance(12 * 3600)
        docs.write(T, PATH, "second draft wombat\n")
        clock.advance(12 * 3600)
        # revision 1 is past its deadline, revision 2 is not
        assert docs.read(T, PATH).revision == 2
        assert [r.revision for r in docs.history(T, PATH)] == [2]
        with pytest.raises(NotFoundError):
            docs.revision(T, PATH, 1)
        with pytest.raises(NotFoundError):
            docs.restore(T, PATH, 1)
        assert [h.path for h in docs.search(T, "wombat")] == [PATH]
        clock.advance(12 * 3600)
        assert docs.get(T, PATH) is None
        with pytest.raises(NotFoundError):
            docs.history(T, PATH)
        assert docs.search(T, "wombat") == [] and docs.search(T, "quokka") == []
        assert [e.path for e in docs.listing(T)] == ["/memories/kept.md"]
        assert [d.path for d in docs.all(T)] == ["/memories/kept.md"]
        assert "expire_documents" in {entry.action for entry in memory.audit(T)}
        docs.create(T, PATH, "a new document at the path\n")  # the path is free again


def test_purge_removes_expired_revisions_chunks_and_vectors(
    store: Store, clock: ManualClock, hashing: HashingEmbedder,
) -> None:
    secret = "zx-document-secret-5521"
    with Memory(store.url, clock=clock, embedder=hashing) as memory:
        docs = memory.documents
        memory.retention(T, "scratch", "PT1H")
        docs.create(T, "/memories/gone-qv81.md", f"{secret}\n" * 50, retention="scratch")
        docs.write(T, "/memories/gone-qv81.md", f"edited {secret}\n")
        docs.create(T, "/memories/kept.md", "kept for good\n")
        assert counts(store)["document_vectors"] > 1
        assert memory.residue(T, secret).found
        clock.advance(3601)
        result = memory.purge()  # nothing read the tenant since the deadline
        assert (result.tenants, result.revisions_removed) == (1, 2)
        assert counts(store) == {"documents": 1, "document_revisions": 1, "document_chunks": 1,
                                 "document_vectors": 1}
        for needle in (secret, "gone-qv81"):
            assert not memory.residue(T, needle).found, memory.residue(T, needle).places
        assert memory.purge().revisions_removed == 0


def test_a_class_deadline_moves_with_the_class_and_never_resurrects(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        docs = memory.documents
        docs.create(T, PATH, "kept by default\n")
        docs.create(T, "/memories/other.md", "in another class\n", retention="project")
        clock.advance(2 * 86400)
        assert docs.get(T, PATH) is not None
        memory.retention(T, "default", "P1D")  # the document is now two days past
        assert docs.get(T, PATH) is None
        memory.retention(T, "default", None)
        assert docs.get(T, PATH) is None
        assert docs.get(T, "/memories/other.md") is not None  # an undeclared class keeps it
        memory.retention(T, "project", "P3D")
        docs.set_metadata(T, "/memories/other.md", retention="default")
        assert docs.get(T, "/memories/other.md") is not None


def test_forgetting_an_episode_reaches_the_revisions_built_on_it(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        docs = memory.documents
        memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "Mira says the code is 4417.")
        memory.add_episode(T, "e2", "2026-06-01T00:01:00Z", "Ola adds a line.")
        memory.add_episode(T, "s1", "2026-06-01T00:02:00Z", "Summary of e1.", derived_from=["e1"])
        by = {name: Provenance("agent", name) for name in ("e1", "e2", "s1")}
        docs.create(T, PATH, "# notes\n")
        docs.insert(T, PATH, 1, "door code 4417-secret", by=by["e1"])
        docs.insert(T, PATH, 2, "a line from e2", by=by["e2"])
        docs.create(T, "/memories/summary.md", "summary 4417-secret\n", by=by["s1"])
        docs.create(T, "/memories/untouched.md", "nothing of e1\n", by=by["e2"])
        clock.advance()
        erased = memory.forget_episode(T, "e1")
        assert erased.episodes_removed == 2
        # the document is back at its last revision before e1's; the later ones were built on it
        assert docs.read(T, PATH).content == "# notes\n" and docs.read(T, PATH).revision == 1
        assert [r.revision for r in docs.history(T, PATH)] == [1]
        assert docs.get(T, "/memories/summary.md") is None  # made from the summary of e1: nothing before it
        with pytest.raises(NotFoundError):
            docs.history(T, "/memories/summary.md")
        assert docs.get(T, "/memories/untouched.md") is not None
        assert docs.search(T, "4417 secret") == []
        assert not memory.residue(T, "4417-secret").found
        detail = next(e.detail for e in memory.audit(T) if e.action == "forget_episode")
        assert detail["revisions"] == 3
        docs.insert(T, PATH, 1, "next revision")
        assert docs.read(T, PATH).revision == 2


def test_forgetting_an_episode_restores_a_deletion_or_erases_when_the_path_is_taken(
    store: Store, clock: ManualClock,
) -> None:
    with Memory(store.url, clock=clock) as memory:
        docs = memory.documents
        memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "A restore and a deletion.")
        docs.create(T, "/memories/a.md", "alpha\n")
        docs.delete(T, "/memories/a.md")
        docs.restore(T, "/memories/a.md", 1, by=Provenance("agent", "e1"))
        docs.create(T, "/memories/b.md", "beta\n")
        docs.delete(T, "/memories/b.md", by=Provenance("agent", "e1"))
        docs.create(T, "/memories/b.md", "a new beta\n")
        memory.forget_episode(T, "e1")
        assert docs.get(T, "/memories/a.md") is None  # back to deleted, history kept
        assert [r.op for r in docs.history(T, "/memories/a.md")] == ["create", "delete"]
        assert docs.read(T, "/memories/b.md").content == "a new beta\n"  # the old b could not come back
        assert [r.content for r in docs.history(T, "/memories/b.md")] == ["a new beta\n"]
