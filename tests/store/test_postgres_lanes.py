"""A PostgreSQL export builds a big table's lines on lanes: pooled connections that took up
the read's exported snapshot. What they build is the read's snapshot, page for page in
order, as the read's own cursor builds it; a walk left unfinished or a failing lane gives
every connection back to the pool, out of its transaction."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import psycopg
import pytest
from tests.conftest import ManualClock, PostgresUrls
from tests.store.export_lines import checked_lines

from sgam import Memory, ValidationError
from sgam.portability.exporter import Ranks
from sgam.store._portable import PORTABLE_TABLES, TABLES_BY_NAME
from sgam.store._sql import lanes as lanes_module
from sgam.store.postgres import PostgresBackend
from sgam.store.postgres import portable as portable_module
from sgam.store.postgres.backend import PostgresReader
from sgam.store.postgres.lanes import SnapshotLanes

TENANT = "acme"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _fill(memory: Memory, facts: int) -> None:
    memory.add_episode(TENANT, "e1", T0, "what the team said")
    memory.write_many(TENANT, [{"subject": f"s{n}", "attribute": "city", "value": f"city {n}",
                                "valid_from": "2026-01-01T00:00:00Z", "source": "e1"} for n in range(facts)])


def _lines(reader: PostgresReader, name: str, page: int) -> list[bytes]:
    return checked_lines(reader.portable(), name, page)


def _backend(memory: Memory) -> PostgresBackend:
    backend = memory.backend
    assert isinstance(backend, PostgresBackend)
    if not backend.dialect.exports_snapshots:
        pytest.skip("this database does not share a read's snapshot (Citus)")
    return backend


def test_lanes_build_the_pages_the_read_builds_alone(postgres: PostgresUrls) -> None:
    with Memory(postgres.app, clock=ManualClock()) as memory:
        _fill(memory, 23)
        backend = _backend(memory)
        with backend.read(TENANT) as reader:
            reader._pool = None  # no lanes: the read's own cursor and one count statement
            alone_counts = reader.portable().count_rows(PORTABLE_TABLES)
            alone = _lines(reader, "operations", 5)
        with backend.read(TENANT) as reader:
            laned_counts = reader.portable().count_rows(PORTABLE_TABLES)  # counted on the lanes
            laned = _lines(reader, "operations", 5)
            assert reader._lanes is not None and reader._lanes.count == lanes_module.LANES
    assert len(alone) == 23 and laned == alone
    assert laned_counts == alone_counts and laned_counts["operations"] == 23 and laned_counts["episodes"] == 1


def test_lanes_read_the_snapshot_of_the_read_not_what_committed_since(postgres: PostgresUrls) -> None:
    with Memory(postgres.app, clock=ManualClock()) as memory:
        _fill(memory, 12)
        backend = _backend(memory)
        with backend.read(TENANT) as reader:
            assert reader.portable().count_rows([TABLES_BY_NAME["operations"]]) == {"operations": 12}
            memory.write(TENANT, "late", "city", "Oslo", T0, "e1")  # commits after the read's snapshot
            laned = _lines(reader, "operations", 2)
        with backend.read(TENANT) as reader:
            later = _lines(reader, "operations", 2)
    assert len(laned) == 12 and len(later) == 13
    assert not any(b'"late"' in line for line in laned)


def test_doubles_are_written_as_python_writes_them_where_the_role_rounds_them(postgres: PostgresUrls) -> None:
    """A server or role may round a double's text (``extra_float_digits`` below 1): each
    connection that builds lines, the read's own and its lanes', sets it back for the read."""
    rounding = postgres.app + ("&" if "?" in postgres.app else "?") + "options=-c%20extra_float_digits%3D-3"
    confidences = [0.1 * n for n in range(1, 11)] + [1 / 3, 0.7000000000000001]
    with Memory(rounding, clock=ManualClock()) as memory:
        memory.add_episode(TENANT, "e1", T0, "what the team said")
        for n, confidence in enumerate(confidences):
            memory.write(TENANT, f"s{n}", "city", f"city {n}", T0, "e1", confidence=confidence)
        backend = _backend(memory)
        with backend.read(TENANT) as reader:
            assert reader._session.row("SHOW extra_float_digits") == ("-3",)
            reader._pool = None
            alone = _lines(reader, "operations", 5)
        with backend.read(TENANT) as reader:
            laned = _lines(reader, "operations", 5)
            assert reader._lanes is not None and reader._lanes.count == lanes_module.LANES
    for lines in (alone, laned):
        assert [json.loads(line)["row"]["confidence"] for line in lines] == confidences
    assert laned == alone


@pytest.mark.parametrize("closed", [True, False], ids=["walk closed", "walk dropped"])
def test_a_walk_left_unfinished_gives_the_lanes_back_out_of_their_transactions(
    postgres: PostgresUrls, closed: bool,
) -> None:
    """Closed by its caller, or neither finished nor closed when the read ends: its threads
    stop before their connections go back to the pool."""
    with Memory(postgres.app, clock=ManualClock()) as memory:
        _fill(memory, 40)
        backend = _backend(memory)
        with backend.read(TENANT) as reader:
            rows = reader.portable()
            walk = rows.record_lines(TABLES_BY_NAME["operations"], Ranks(rows).dense, 2)
            assert next(walk).lines == 2
            if closed:
                walk.close()
            lanes = reader._lanes
            assert lanes is not None and lanes.count == lanes_module.LANES
            held = list(lanes._conns)
        assert lanes.count == 0 and not lanes._walking
        assert all(conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE for conn in held)
        assert memory.get(TENANT, "s3", "city").value == "city 3"  # the pool still serves
        walk.close()


def test_a_failing_lane_fails_the_walk_and_the_read_ends_cleanly(postgres: PostgresUrls) -> None:
    with Memory(postgres.app, clock=ManualClock()) as memory:
        _fill(memory, 10)
        backend = _backend(memory)
        with backend.read(TENANT) as reader:
            reader.portable().count_rows([TABLES_BY_NAME["operations"]])
            lanes = reader._snapshot_lanes()
            assert lanes is not None
            with pytest.raises(psycopg.errors.UndefinedTable):
                list(lanes.pages([("SELECT 1", ()), ("SELECT * FROM no_such_table", ()), ("SELECT 2", ())]))
        assert memory.get(TENANT, "s3", "city").value == "city 3"


def test_a_pool_without_a_spare_connection_builds_the_lines_alone(postgres: PostgresUrls) -> None:
    with Memory(backend=PostgresBackend(postgres.app, max_size=1), clock=ManualClock()) as memory:
        _fill(memory, 9)
        with _backend(memory).read(TENANT) as reader:
            assert len(_lines(reader, "operations", 2)) == 9
            assert reader._lanes is not None and reader._lanes.count == 0


def test_a_pool_whose_spare_connection_is_taken_builds_the_lines_alone(postgres: PostgresUrls) -> None:
    """The lane waits a moment (``WAIT``) for the busy pool, then the read goes on alone."""
    with Memory(backend=PostgresBackend(postgres.app, max_size=2), clock=ManualClock()) as memory:
        _fill(memory, 9)
        backend = _backend(memory)
        taken = backend._pool.getconn()
        try:
            with backend.read(TENANT) as reader:
                assert len(_lines(reader, "operations", 2)) == 9
                assert reader._lanes is not None and reader._lanes.count == 0
        finally:
            backend._pool.putconn(taken)


def test_a_snapshot_id_is_checked_before_it_is_spliced_into_sql(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        backend = _backend(memory)
        with pytest.raises(ValueError, match="not a snapshot id"):
            SnapshotLanes(backend._pool, backend.dialect, TENANT, "1-2'; DROP TABLE operations; --")


def _laned(memory: Memory, name: str, page: int) -> tuple[list[bytes], list[bytes], object]:
    """A table's lines built alone and on lanes, and the bounds the lanes' count found for
    it (``page`` stands for ``PAGE``, the page an export reads)."""
    backend = _backend(memory)
    with backend.read(TENANT) as reader:
        reader._pool = None
        alone = _lines(reader, name, page)
    with backend.read(TENANT) as reader:
        rows = reader.portable()
        rows.count_rows(PORTABLE_TABLES)
        bounds = rows._bounds.get(name)
        laned = [bytes(row[-1]) for built in rows.record_lines(TABLES_BY_NAME[name], Ranks(rows).dense, page)
                 for row in built.keyed()]
    return alone, laned, bounds


def test_a_table_keyed_by_dense_integers_is_paged_by_key_value(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No pass over the keys: the count and the key's ends give the pages, and a tenant's
    keys two apart (another tenant's between them) make pages of half as many rows."""
    monkeypatch.setattr(portable_module, "PAGE", 4)
    with Memory(postgres.app, clock=ManualClock()) as memory:
        memory.add_episode("other", "e1", T0, "another tenant")
        memory.add_episode(TENANT, "e1", T0, "what the team said")
        for n in range(11):
            memory.write(TENANT, f"s{n}", "city", f"city {n}", T0, "e1")
            memory.write("other", f"s{n}", "city", f"town {n}", T0, "e1")
        alone, laned, bounds = _laned(memory, "operations", 4)
        assert len(alone) == 11 and laned == alone
        assert bounds == [(4,), (8,)]  # the tenant's own numbers, 1..11
        alone, laned, bounds = _laned(memory, "assertions", 4)
    assert len(alone) == 11 and laned == alone
    assert isinstance(bounds, list) and len(bounds) in (5, 6)  # keys 1, 3, 5, …: two a page


def test_a_table_whose_integer_keys_spread_thin_is_paged_by_a_pass_over_them(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Five other tenants' rows between each two of the tenant's: paged by value, most pages
    would be empty; the window over the keys finds full pages instead."""
    monkeypatch.setattr(portable_module, "PAGE", 4)
    with Memory(postgres.app, clock=ManualClock()) as memory:
        memory.add_episode(TENANT, "e1", T0, "what the team said")
        for other in range(5):
            memory.add_episode(f"other{other}", "e1", T0, "another tenant")
        for n in range(10):
            memory.write(TENANT, f"s{n}", "city", f"city {n}", T0, "e1")
            for other in range(5):
                memory.write(f"other{other}", f"s{n}", "city", f"town {n}", T0, "e1")
        alone, laned, bounds = _laned(memory, "assertions", 4)
    assert len(alone) == 10 and laned == alone
    assert bounds is None  # left to record_lines, which found them by the window


@pytest.mark.parametrize("lanes", [0, 1])
def test_the_backend_sets_how_many_lanes_an_export_takes(postgres: PostgresUrls, lanes: int) -> None:
    with Memory(backend=PostgresBackend(postgres.app, export_lanes=lanes), clock=ManualClock()) as memory:
        _fill(memory, 9)
        with _backend(memory).read(TENANT) as reader:
            assert len(_lines(reader, "operations", 2)) == 9
            assert (reader._lanes.count if reader._lanes is not None else 0) == lanes


@pytest.mark.parametrize("lanes", [-1, True, 1.5, "2"])
def test_export_lanes_must_be_a_whole_number_of_connections(postgres: PostgresUrls, lanes: object) -> None:
    with pytest.raises(ValidationError, match="export_lanes") as raised:
        PostgresBackend(postgres.app, export_lanes=lanes)  # type: ignore[arg-type]
    assert raised.value.field == "export_lanes"
