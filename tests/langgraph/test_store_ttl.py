"""TTL in minutes, ``TTLConfig`` defaults and refresh on read, as LangGraph documents
them; and what sgam adds: an expired item is never returned, swept or not (ported
from LangGraph's TTL tests, with the test's clock instead of sleeps)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from langgraph.store.base import GetOp, PutOp

from sgam import Memory
from sgam.langgraph import SgamStore

from ..conftest import ManualClock, Store
from .conftest import TENANT


def test_ttl_refreshed_by_reads(items: SgamStore, clock: object) -> None:
    ns = ("foo",)
    items.put(ns, "item1", {"foo": "bar"}, ttl=1)
    clock.advance(50)  # type: ignore[attr-defined]
    assert items.get(ns, "item1", refresh_ttl=True) is not None
    clock.advance(50)  # type: ignore[attr-defined]
    assert len(items.search(ns, query="foo", refresh_ttl=True)) == 1
    clock.advance(50)  # type: ignore[attr-defined]
    assert items.get(ns, "item1", refresh_ttl=False) is not None
    clock.advance(11)  # type: ignore[attr-defined]  # 61 s since the last refresh
    assert items.search(ns, query="bar", refresh_ttl=False) == []
    assert items.get(ns, "item1") is None


def test_expired_items_are_never_returned_unswept(items: SgamStore, clock: object) -> None:
    items.put(("omit", "expired"), "e", {"data": "gone"}, ttl=1)
    items.put(("omit", "control"), "c", {"data": "keep"}, ttl=None)
    clock.advance(61)  # type: ignore[attr-defined]
    assert items.get(("omit", "expired"), "e") is None
    assert items.get(("omit", "control"), "c") is not None
    assert items.search(("omit", "expired")) == []
    assert [i.key for i in items.search(("omit",), query="gone data")] == ["c"]
    assert items.list_namespaces(prefix=("omit",)) == [("omit", "control")]
    assert items.get(("omit", "expired"), "e", refresh_ttl=True) is None  # a read does not resurrect it
    assert items.search(("omit", "expired"), refresh_ttl=True) == []


def test_refresh_extends_only_live_items(items: SgamStore, clock: object) -> None:
    ns = ("refresh",)
    items.put(ns, "expired", {"n": 0}, ttl=1)
    clock.advance(30)  # type: ignore[attr-defined]
    items.put(ns, "live_get", {"n": 1}, ttl=1)
    items.put(ns, "live_search", {"n": 2}, ttl=1)
    items.put(ns, "no_ttl", {"n": 3})
    clock.advance(40)  # type: ignore[attr-defined]
    assert items.get(ns, "expired", refresh_ttl=True) is None
    assert items.get(ns, "live_get", refresh_ttl=True) is not None
    assert {i.key for i in items.search(ns, refresh_ttl=True)} == {"live_get", "live_search", "no_ttl"}
    clock.advance(59)  # type: ignore[attr-defined]
    assert {i.key for i in items.search(ns, refresh_ttl=False)} == {"live_get", "live_search", "no_ttl"}
    clock.advance(2)  # type: ignore[attr-defined]
    assert {i.key for i in items.search(ns)} == {"no_ttl"}


def test_ttl_config_defaults(memory: Memory, clock: object) -> None:
    items = SgamStore(memory, tenant=TENANT, ttl={"default_ttl": 2, "refresh_on_read": False})
    items.put(("d",), "k", {"v": 1})
    items.put(("d",), "forever", {"v": 2}, ttl=None)
    clock.advance(100)  # type: ignore[attr-defined]
    assert items.get(("d",), "k") is not None  # read, but refresh_on_read is off
    clock.advance(21)  # type: ignore[attr-defined]
    assert items.get(("d",), "k") is None
    assert items.get(("d",), "forever") is not None
    refreshing = SgamStore(memory, tenant=TENANT, ttl={"default_ttl": 1})
    refreshing.put(("r",), "k", {"v": 1})
    for _ in range(5):
        clock.advance(50)  # type: ignore[attr-defined]
        assert refreshing.get(("r",), "k") is not None  # refresh_on_read defaults to True


def test_an_expired_item_goes_with_its_history(items: SgamStore, memory: Memory, clock: object) -> None:
    ns = ("h",)
    items.put(ns, "k", {"v": 1})
    items.put(ns, "k", {"v": 2}, ttl=1)
    items.put(ns, "other", {"v": 3})
    assert [v.value for v in items.history(ns, "k")] == [{"v": 1}, {"v": 2}]
    subject = '["h"]'
    assert memory.get(TENANT, subject, "k") is not None
    clock.advance(61)  # type: ignore[attr-defined]
    # the ledger settles the deadline before any read: value, history and provenance go
    assert memory.get(TENANT, subject, "k") is None and memory.history(TENANT, subject, "k") == []
    assert items.get(ns, "k") is None and items.history(ns, "k") == []
    assert [e.text for e in memory.episodes(TENANT)] == ['LangGraph store put ["h"] other']
    assert items.get(ns, "other") is not None
    items.put(ns, "k", {"v": 4})
    assert [v.value for v in items.history(ns, "k")] == [{"v": 4}]
    assert items.get(ns, "k").created_at == items.get(ns, "k").updated_at  # type: ignore[union-attr]
    actions = {entry.action for entry in memory.audit(TENANT)}
    assert "expire_item" in actions


def test_a_put_without_ttl_lifts_the_deadline_of_the_history(items: SgamStore, clock: object) -> None:
    ns = ("lift",)
    items.put(ns, "k", {"v": 1}, ttl=1)
    items.put(ns, "k", {"v": 2})
    clock.advance(120)  # type: ignore[attr-defined]
    assert items.get(ns, "k").value == {"v": 2}  # type: ignore[union-attr]
    assert [v.value for v in items.history(ns, "k")] == [{"v": 1}, {"v": 2}]


def test_a_refresh_moves_the_deadline_of_the_whole_history(items: SgamStore, memory: Memory, clock: object) -> None:
    ns = ("r",)
    items.put(ns, "k", {"v": 1}, ttl=1)
    items.put(ns, "k", {"v": 2}, ttl=1)
    clock.advance(50)  # type: ignore[attr-defined]
    assert items.get(ns, "k", refresh_ttl=True) is not None
    clock.advance(50)  # type: ignore[attr-defined]  # past the first deadline, within the refreshed one
    assert [v.value for v in items.history(ns, "k")] == [{"v": 1}, {"v": 2}]
    assert memory.get(TENANT, '["r"]', "k") is not None
    assert memory.get(TENANT, '["r"]', "k", at="2026-06-01T00:00:00Z") is None  # the ledger's own read
    clock.advance(11)  # type: ignore[attr-defined]
    assert items.history(ns, "k") == [] and memory.get(TENANT, '["r"]', "k") is None


def test_a_deleted_item_keeps_its_deadline(items: SgamStore, clock: object) -> None:
    ns = ("d",)
    items.put(ns, "k", {"v": 1}, ttl=1)
    items.delete(ns, "k")
    [version] = items.history(ns, "k")
    assert version.valid_to is not None
    clock.advance(61)  # type: ignore[attr-defined]
    assert items.history(ns, "k") == []
    items.delete(ns, "k")  # deleting what already expired is no error


def test_purge_removes_expired_items_physically(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        items = SgamStore(memory, tenant=TENANT)
        items.put(("vault",), "qx7-ttl-key", {"secret": "zz9-plural-z-alpha"}, ttl=1)
        items.put(("vault",), "kept", {"note": "stays"})
        assert memory.residue(TENANT, "zz9-plural-z-alpha").found
        clock.advance(61)
        result = memory.purge()  # no read ran since the deadline
        assert (result.tenants, result.items_removed) == (1, 1)
        for needle in ("zz9-plural-z-alpha", "qx7-ttl-key"):
            assert not memory.residue(TENANT, needle).found, needle
        assert items.get(("vault",), "kept") is not None
        assert memory.purge().items_removed == 0


def test_sweep_purges_expired_items(items: SgamStore, memory: Memory, clock: object) -> None:
    for i in range(3):
        items.put(("s",), f"k{i}", {"v": i}, ttl=1)
    items.put(("s",), "keep", {"v": 9})
    assert items.sweep_ttl() == 0
    clock.advance(90)  # type: ignore[attr-defined]
    assert items.sweep_ttl() == 3
    assert items.sweep_ttl() == 0
    assert [i.key for i in items.search(("s",))] == ["keep"]
    assert items.history(("s",), "k0") == []


def test_as_of_reads_honour_the_deadline(items: SgamStore, clock: object) -> None:
    items.put(("a",), "k", {"v": 0}, ttl=1)
    put_at = items.get(("a",), "k").updated_at  # type: ignore[union-attr]
    at_expiry = put_at + timedelta(minutes=1)
    assert items.get(("a",), "k", at=at_expiry - timedelta(seconds=1)) is not None
    assert items.get(("a",), "k", at=at_expiry) is None


def test_sweeper_thread_starts_and_stops(items: SgamStore) -> None:
    thread = items.start_ttl_sweeper(sweep_interval_minutes=60)
    assert thread.is_alive() and items.start_ttl_sweeper() is thread
    assert items.stop_ttl_sweeper(timeout=5)
    assert not thread.is_alive()


def test_a_refresh_locks_its_keys_before_it_touches_a_row(
    items: SgamStore, clock: object, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On PostgreSQL a TTL refresh updates rows; taking the subject locks first keeps a
    refresh and a put of the same item from each holding what the other waits for."""
    items.put(("lock",), "k", {"v": 1}, ttl=1)
    write_class = type(items.memory.backend.run_write(TENANT, lambda txn: txn))
    calls: list[str] = []
    for name in ("lock_keys", "refresh_items"):
        original = getattr(write_class, name)

        def spy(self: object, *args: object, _name: str = name, _original: object = original) -> object:
            calls.append(_name)
            return _original(self, *args)  # type: ignore[operator]

        monkeypatch.setattr(write_class, name, spy)
    items.batch([GetOp(("lock",), "k", refresh_ttl=True), PutOp(("lock",), "other", {"v": 2})])
    assert calls.index("lock_keys") < calls.index("refresh_items")
