"""TTL in minutes, ``TTLConfig`` defaults and refresh on read, as LangGraph documents
them; and what sgam adds: an expired item is never returned, swept or not (ported
from LangGraph's TTL tests, with the test's clock instead of sleeps)."""

from __future__ import annotations

from datetime import timedelta

from sgam import Memory
from sgam.langgraph import SgamStore

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


def test_expired_then_written_again_keeps_exact_history(items: SgamStore, clock: object) -> None:
    first = items.put(("h",), "k", {"v": 1}, ttl=1)
    assert first is None
    created = items.get(("h",), "k").created_at  # type: ignore[union-attr]
    clock.advance(120)  # type: ignore[attr-defined]
    items.put(("h",), "k", {"v": 2})
    again = items.get(("h",), "k")
    assert again is not None and again.created_at > created
    history = items.history(("h",), "k")
    assert [v.value for v in history] == [{"v": 1}, {"v": 2}]
    assert history[0].valid_to == created + timedelta(minutes=1)
    items.put(("h",), "gone", {"v": 1}, ttl=1)
    clock.advance(61)  # type: ignore[attr-defined]
    items.delete(("h",), "gone")  # deleting what already expired is no error
    assert items.history(("h",), "gone")[0].valid_to is not None


def test_sweep_closes_expired_items_in_the_ledger(items: SgamStore, clock: object) -> None:
    for i in range(3):
        items.put(("s",), f"k{i}", {"v": i}, ttl=1)
    items.put(("s",), "keep", {"v": 9})
    put_at = items.get(("s",), "k0").updated_at  # type: ignore[union-attr]
    assert items.sweep_ttl() == 0
    at_expiry = put_at + timedelta(minutes=1)
    assert items.get(("s",), "k0", at=at_expiry - timedelta(seconds=1)) is not None
    clock.advance(90)  # type: ignore[attr-defined]
    assert items.get(("s",), "k0", at=at_expiry) is None  # as-of reads honour expiry before a sweep too
    assert items.sweep_ttl() == 3
    assert items.sweep_ttl() == 0
    assert [i.key for i in items.search(("s",))] == ["keep"]
    assert items.history(("s",), "k0")[0].valid_to == at_expiry
    assert items.get(("s",), "k0", at=at_expiry - timedelta(seconds=1)).value == {"v": 0}  # type: ignore[union-attr]
    assert items.get(("s",), "k0", at=at_expiry) is None


def test_sweeper_thread_starts_and_stops(items: SgamStore) -> None:
    thread = items.start_ttl_sweeper(sweep_interval_minutes=60)
    assert thread.is_alive() and items.start_ttl_sweeper() is thread
    assert items.stop_ttl_sweeper(timeout=5)
    assert not thread.is_alive()
