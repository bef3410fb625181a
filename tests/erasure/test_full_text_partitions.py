"""SQLite full-text partitions: an erasure rewrites only the partition that held what it
erased (a large tenant's own: never another tenant's), searches see every partition that
holds the tenant's rows, small tenants share partitions, an emptied partition is dropped,
and a database of the previous schema moves into partitions."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from sgam import Memory
from sgam.store.sqlite import fulltext
from sgam.store.sqlite.fulltext import EPISODES, KEYS, Part, count_rows, layout

AT = "2026-06-01T09:00:00Z"


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Partitions of 50 rows; a tenant's rows after its first 20 go to its own."""
    monkeypatch.setattr(fulltext, "PART_ROWS", 50)
    monkeypatch.setattr(fulltext, "OWN_AFTER", 20)
    yield


def _own(conn: sqlite3.Connection, tenant: str) -> list[Part]:
    return layout(conn, EPISODES, tenant).own


def _shared(conn: sqlite3.Connection, tenant: str = "") -> list[Part]:
    return layout(conn, EPISODES, tenant).shared


def _fill(memory: Memory, tenant: str, count: int, marker: str = "") -> None:
    memory.add_episodes(tenant, [
        {"id": f"e{n}", "at": AT, "text": f"crane {tenant} number w{n}x" + (f" {marker}" if n == 60 else "")}
        for n in range(count)])


def _digests(conn: sqlite3.Connection, found_parts: list[Part]) -> dict[int, str]:
    """Each partition, as the hash of its stored segments."""
    found = {}
    for part in found_parts:
        blocks = conn.execute(f"SELECT id, block FROM {EPISODES.table(part.part)}_data ORDER BY id").fetchall()
        found[part.part] = hashlib.sha256(repr(blocks).encode()).hexdigest()
    return found


def test_an_erasure_rewrites_only_the_partition_that_held_the_episode(tmp_path: Path, small_parts: None) -> None:
    path = tmp_path / "sgam.db"
    marker = f"zqm{secrets.token_hex(6)}q"
    with Memory(f"sqlite:///{path}") as memory:
        _fill(memory, "acme", 120, marker)
        _fill(memory, "globex", 60)
        with closing(sqlite3.connect(path)) as conn:
            held, shared = _own(conn, "acme"), _shared(conn)
            assert [part.rows for part in held] == [50, 50] and [part.rows for part in shared] == [40]
            acme, globex = _digests(conn, held + shared), _digests(conn, _own(conn, "globex"))
            assert len(globex) == 1
            holder = held[0].part  # e60 is the 61st row: past the 20 shared ones
            assert marker[-9:].encode() in b"".join(
                row[0] for row in conn.execute(f"SELECT block FROM {EPISODES.table(holder)}_data"))
        before = memory.residue("acme", marker)
        assert any(place.startswith(f"table {EPISODES.table(holder)}") for place in before.places), before

        assert memory.forget_episode("acme", "e60").residue is None

        with closing(sqlite3.connect(path)) as conn:
            after = _digests(conn, _own(conn, "acme") + _shared(conn))
            assert after[holder] != acme[holder]
            assert {k: v for k, v in after.items() if k != holder} == {k: v for k, v in acme.items() if k != holder}
            assert _digests(conn, _own(conn, "globex")) == globex  # another tenant's index is never read
            assert not any(marker[-9:].encode() in row[0] for row in conn.execute(
                f"SELECT block FROM {EPISODES.table(holder)}_data"))
        found = memory.residue("acme", marker)
        assert not found.found and f"table {EPISODES.table(holder)}_data" not in found.unscanned, found


def test_searches_see_every_partition_and_the_queue_is_empty_after_each_commit(
    tmp_path: Path, small_parts: None,
) -> None:
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        _fill(memory, "acme", 120)
        for n in (0, 75, 119):
            memory.add_episode("acme", f"late{n}", AT, f"a second crane w{n}x")
        assert {hit.episode_id for hit in memory.search("acme", "w0x w75x w119x", limit=10)} == {
            "e0", "e75", "e119", "late0", "late75", "late119"}
        memory.write("acme", "ann", "badge", "b1", AT, "e0")
        assert "b1" in memory.recall("acme", "what is the badge of ann?").text
        with closing(sqlite3.connect(path)) as conn:
            assert count_rows(conn, EPISODES) == 123 and count_rows(conn, KEYS) == 1
            assert count_rows(conn, EPISODES, "w75x") == 2 and count_rows(conn, EPISODES, "crane") == 123
            assert conn.execute("SELECT count(*) FROM full_text_queue").fetchone() == (0,)
            assert [part.rows for part in _own(conn, "acme")] == [50, 50, 3]
            assert [part.rows for part in _shared(conn)] == [20]


def test_small_tenants_share_partitions_and_an_emptied_one_is_dropped_whole(
    tmp_path: Path, small_parts: None,
) -> None:
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        for n in range(30):
            memory.add_episode(f"t{n}", "e0", AT, f"crane of tenant t{n}x")
            memory.write(f"t{n}", "ann", "badge", f"b{n}", AT, "e0")
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("SELECT family, tenant, rows FROM full_text_parts ORDER BY family").fetchall() == [
                ("episodes", None, 30), ("keys", None, 30)]
        memory.forget_episode("t3", "e0")
        assert [hit.episode_id for hit in memory.search("t4", "crane")] == ["e0"]
        assert memory.search("t3", "crane") == [] and memory.search("t4", "t3x") == []
        for n in range(30):
            if n != 3:
                memory.forget_episode(f"t{n}", "e0")
        with closing(sqlite3.connect(path)) as conn:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert not [name for name in tables if name.startswith(("episodes_fts_", "ledger_keys_fts_"))]
            assert conn.execute("SELECT count(*) FROM full_text_parts").fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM full_text_members").fetchone() == (0,)
        memory.add_episode("t4", "again", AT, "the crane is back")
        assert [hit.episode_id for hit in memory.search("t4", "crane")] == ["again"]


def test_an_episode_erasure_leaves_the_other_indexes_alone_until_their_own_deletions(tmp_path: Path) -> None:
    """The document and item indexes hold no episode: forgetting one must not merge them
    (it did, whole, on every erasure); erasing a document still merges its index."""
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        memory.documents.create("acme", "/memories/a.md", "Alpha notes about cranes.\n")
        memory.documents.create("acme", "/memories/b.md", "Beta notes about harbours.\n")
        memory.add_episode("acme", "e1", AT, "a crane story")

        def segments() -> list[tuple[int, bytes]]:
            with closing(sqlite3.connect(path)) as conn:
                return conn.execute("SELECT id, block FROM document_chunks_fts_data ORDER BY id").fetchall()

        before = segments()
        assert memory.forget_episode("acme", "e1").residue is None
        assert segments() == before
        assert memory.documents.erase("acme", "/memories/b.md") == 1
        assert segments() != before
        assert not [block for _, block in segments() if b"harbour" in block]
