"""SQLite erasure residue: full-text indexes stay healthy over many erasures, and erased
bytes left in the WAL by a reader's old snapshot are reported, then removed."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from sgam import Memory
from sgam.store.sqlite.fulltext import EPISODES, KEYS, MAX_FULL_TEXT_LEVELS, count_rows, full_text_levels, tables

ERASURES = int(os.environ.get("SGAM_TEST_ERASURES", "3000"))
"""3,000 by default: past where the index used to break (about 1,100) with dozens of its
rebuilds, in about half a minute. ``SGAM_TEST_ERASURES=10000`` for the long run."""
MEMORY_FS = Path("/dev/shm")


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory where the machine has one: the test is about FTS5's structure,
    not the disk, and every erasure's checkpoint would otherwise wait for an fsync."""
    if not MEMORY_FS.is_dir() or not os.access(MEMORY_FS, os.W_OK):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(dir=MEMORY_FS, prefix="sgam-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_thousands_of_erasures_keep_the_full_text_index_healthy(fast_dir: Path) -> None:
    """Each erasure merges the indexes; the structure they grow stays bounded (it used to
    pass FTS5's limit after about 1,200 erasures and corrupt the index for good).
    ``SGAM_TEST_ERASURES`` changes the count."""
    path = fast_dir / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        for n in range(ERASURES):  # add two episodes, forget the oldest: the index grows
            for k in (2 * n, 2 * n + 1):
                memory.add_episode("acme", f"e{k}", "2026-06-01T00:00:00Z", f"harbour crane number {k}")
            memory.forget_episode("acme", f"e{n}")
        assert {hit.episode_id for hit in memory.search("acme", "harbour crane")} <= {
            f"e{k}" for k in range(ERASURES, 2 * ERASURES)}
        assert "harbour crane number" in memory.recall("acme", "harbour crane").text
    with closing(sqlite3.connect(path)) as conn:
        for table, _ in tables(conn, EPISODES, "acme") + tables(conn, KEYS, "acme"):
            assert full_text_levels(conn, table) < MAX_FULL_TEXT_LEVELS
            conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")
        assert count_rows(conn, EPISODES, "harbour") == ERASURES
        for k, count in ((ERASURES - 1, 0), (ERASURES, 1), (2 * ERASURES - 1, 1)):
            assert count_rows(conn, EPISODES, f'"{k}"') == count


def _planted(path: Path, marker: bytes) -> list[str]:
    return [p.name for p in path.parent.glob(path.name + "*") if marker in p.read_bytes()]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sgam.db"


def _reader(path: Path) -> sqlite3.Connection:
    """Another connection holding a read snapshot taken now."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM episodes").fetchone()
    return conn


def test_a_reader_holding_an_old_snapshot_is_reported_then_the_next_write_cleans_up(db_path: Path) -> None:
    with Memory(f"sqlite:///{db_path}") as memory:
        memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "the code is zq-wal-marker-17")
        reader = _reader(db_path)
        result = memory.forget_episode("acme", "e1")
        assert result.residue is not None and "read transaction" in result.residue
        assert _planted(db_path, b"zq-wal-marker-17") == ["sgam.db-wal"]
        reader.close()
        memory.add_episode("acme", "e2", "2026-06-01T00:00:00Z", "a later write")
        assert _planted(db_path, b"zq-wal-marker-17") == []
        assert memory.purge_residue(wait=0) is None


def test_purge_residue_waits_for_readers_within_its_bound(db_path: Path) -> None:
    with Memory(f"sqlite:///{db_path}") as memory:
        memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "the code is zq-wal-marker-18")
        reader = _reader(db_path)
        assert memory.forget_episode("acme", "e1").residue is not None
        started = time.monotonic()
        assert memory.purge_residue(wait=0.2) is not None  # still held: says so after the wait
        assert 0.15 < time.monotonic() - started < 5
        threading.Timer(0.3, reader.close).start()
        assert memory.purge_residue(wait=10) is None
        assert _planted(db_path, b"zq-wal-marker-18") == []


def test_an_erasure_without_readers_leaves_nothing(db_path: Path) -> None:
    with Memory(f"sqlite:///{db_path}") as memory:
        memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "the code is zq-wal-marker-19")
        assert memory.forget_episode("acme", "e1").residue is None
        assert _planted(db_path, b"zq-wal-marker-19") == []
