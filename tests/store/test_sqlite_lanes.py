"""A SQLite export builds a big table's pages on lanes: processes of their own whose read
transactions began, with the read's own begun again, while no write could commit. What
they build is the read's snapshot, page for page, as the read builds it alone; a write
committed as they open moves the read to the new snapshot (counted again), one committed
after is in none of them; a store that cannot give lanes gives none."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import ManualClock
from tests.store.export_lines import checked_lines

from sgam import Memory, StoreError, ValidationError
from sgam.portability.exporter import Ranks
from sgam.store._portable import PORTABLE_TABLES, TABLES_BY_NAME
from sgam.store._sql import lanes as lanes_module
from sgam.store.sqlite import portable as sqlite_rows_module
from sgam.store.sqlite.backend import SQLiteBackend
from sgam.store.sqlite.lanes import FileLanes
from sgam.store.sqlite.portable import SQLitePortableRows

TENANT = "acme"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
PAGE = 4


@pytest.fixture(autouse=True)
def _small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of four rows, so that a few facts make a table of several pages."""
    monkeypatch.setattr(sqlite_rows_module, "PAGE", PAGE)


def _memory(path: Path, lanes: int = lanes_module.LANES) -> Memory:
    return Memory(backend=SQLiteBackend(str(path), export_lanes=lanes), clock=ManualClock())


def _fill(memory: Memory, facts: int, tenant: str = TENANT) -> None:
    memory.add_episode(tenant, "e1", T0, "what the team said")
    memory.write_many(tenant, [{"subject": f"s{n}", "attribute": "city", "value": f"city {n}",
                                "valid_from": "2026-01-01T00:00:00Z", "source": "e1"} for n in range(facts)])


def _lines(rows: SQLitePortableRows, name: str) -> list[bytes]:
    return checked_lines(rows, name, PAGE)


@contextmanager
def _export_read(memory: Memory) -> Iterator[tuple[SQLitePortableRows, list[subprocess.Popen[bytes]]]]:
    """An export's read of ``memory``'s tenant, counted, with its lanes' processes."""
    backend = memory.backend
    assert isinstance(backend, SQLiteBackend)
    with backend.read(TENANT) as reader:
        rows = reader.portable()
        rows.count_rows(PORTABLE_TABLES)
        lanes = _lanes(rows)
        assert lanes is not None and lanes.count == lanes_module.LANES
        yield rows, list(lanes._conns)


def _lanes(rows: SQLitePortableRows) -> FileLanes | None:
    lanes = rows.lanes()
    assert lanes is None or isinstance(lanes, FileLanes)
    return lanes


def _laned(memory: Memory, name: str) -> tuple[dict[str, int], list[bytes], int | None]:
    """The table's counts and lines, and how many lanes the read had (None: no lanes at
    all); every lane process has ended once the read has."""
    backend = memory.backend
    assert isinstance(backend, SQLiteBackend)
    with backend.read(TENANT) as reader:
        rows = reader.portable()
        counts = rows.count_rows(PORTABLE_TABLES)
        lanes = _lanes(rows)
        workers = list(lanes._conns) if lanes is not None else []
        found = counts, _lines(rows, name), None if lanes is None else lanes.count
    assert all(worker.poll() is not None for worker in workers)
    return found


def test_lanes_build_the_pages_the_read_builds_alone(tmp_path: Path) -> None:
    with _memory(tmp_path / "store.db") as memory:
        _fill(memory, 23)
        laned_counts, laned, lanes = _laned(memory, "operations")
    with _memory(tmp_path / "store.db", lanes=0) as memory:
        alone_counts, alone, none = _laned(memory, "operations")
    assert lanes == lanes_module.LANES and none is None
    assert len(alone) == 23 and laned == alone and laned_counts == alone_counts


def test_an_export_on_lanes_equals_one_built_alone(tmp_path: Path) -> None:
    with _memory(tmp_path / "store.db") as memory:
        _fill(memory, 30)
        memory.export_tenant(TENANT, tmp_path / "laned.jsonl")
    with _memory(tmp_path / "store.db", lanes=0) as memory:
        memory.export_tenant(TENANT, tmp_path / "alone.jsonl")
    laned, alone = ((tmp_path / name).read_text().splitlines() for name in ("laned.jsonl", "alone.jsonl"))
    assert laned[1:-1] == alone[1:-1]
    assert sum(line.startswith('{"table":"operations"') for line in laned) == 30


@pytest.mark.parametrize(("commits", "lanes_end"), [("before", False), ("before", True), ("after", False)],
                         ids=["before the lanes open", "before lanes that end at once", "after the lanes opened"])
def test_a_write_committed_beside_an_export_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commits: str, lanes_end: bool,
) -> None:
    """Committed after the read began but before its lanes opened: opening them begins
    the read again on the newer snapshot, and the tables are counted again there, so its
    counts and lines agree, with lanes or (their processes ending at once) without.
    Committed once they opened: in none of the read's pages."""
    if lanes_end:
        ending = tmp_path / "ending.py"
        ending.write_text("raise SystemExit(3)\n")
        monkeypatch.setattr("sgam.store.sqlite.lanes.WORKER", ending)
    with _memory(tmp_path / "store.db") as memory, _memory(tmp_path / "store.db", lanes=0) as other:
        _fill(memory, 10)
        backend = memory.backend
        assert isinstance(backend, SQLiteBackend)
        with backend.read(TENANT) as reader:
            rows = reader.portable()
            if commits == "before":
                other.write(TENANT, "late", "city", "Oslo", T0, "e1")
            counts = rows.count_rows(PORTABLE_TABLES)
            if commits == "after":
                other.write(TENANT, "late", "city", "Oslo", T0, "e1")
            lanes = _lanes(rows)
            assert lanes is not None and lanes.moved == (commits == "before")
            assert lanes.count == (0 if lanes_end else lanes_module.LANES)
            lines = _lines(rows, "operations")
    seen = commits == "before"
    assert counts["operations"] == len(lines) == 10 + seen and any(b'"late"' in line for line in lines) == seen


def test_a_writer_holding_the_file_leaves_the_read_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sgam.store.sqlite.lanes.WAIT", 0.05)
    with _memory(tmp_path / "store.db") as memory:
        _fill(memory, 10)
        writer = sqlite3.connect(tmp_path / "store.db", isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        try:
            counts, lines, lanes = _laned(memory, "operations")
        finally:
            writer.execute("ROLLBACK")
            writer.close()
    assert lanes == 0
    assert counts["operations"] == 10 and len(lines) == 10


def test_a_store_in_memory_has_no_lanes() -> None:
    with Memory("sqlite:///:memory:", clock=ManualClock()) as memory:
        _fill(memory, 10)
        counts, lines, lanes = _laned(memory, "operations")
    assert lanes is None and counts["operations"] == 10 and len(lines) == 10


def test_a_lane_that_ends_early_fails_the_export_and_the_read_ends_cleanly(tmp_path: Path) -> None:
    with _memory(tmp_path / "store.db") as memory:
        _fill(memory, 30)
        with _export_read(memory) as (rows, workers):
            workers[1].kill()
            with pytest.raises(StoreError, match="lane process ended early"):
                _lines(rows, "operations")
        assert all(worker.poll() is not None for worker in workers)
        assert memory.get(TENANT, "s3", "city").value == "city 3"


def test_a_walk_left_unfinished_ends_its_lanes_with_the_read(tmp_path: Path) -> None:
    with _memory(tmp_path / "store.db") as memory:
        _fill(memory, 30)
        with _export_read(memory) as (rows, workers):
            walk = rows.record_lines(TABLES_BY_NAME["operations"], Ranks(rows).dense, PAGE)
            assert next(walk).lines == PAGE
        assert all(worker.poll() is not None for worker in workers)
        walk.close()
        assert memory.get(TENANT, "s3", "city").value == "city 3"


@pytest.mark.parametrize("lanes", [-1, True, 1.5, "2"])
def test_export_lanes_must_be_a_whole_number_of_connections(tmp_path: Path, lanes: object) -> None:
    with pytest.raises(ValidationError, match="export_lanes") as raised:
        SQLiteBackend(str(tmp_path / "store.db"), export_lanes=lanes)  # type: ignore[arg-type]
    assert raised.value.field == "export_lanes" and not (tmp_path / "store.db").exists()
