"""What sgam adds to a LangGraph store: every put a versioned, attributed write;
history and as-of reads; ``delete`` ends a value and keeps its history while
``forget`` erases it; tenants never see each other's items."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import psycopg
import pytest

from sgam import Memory
from sgam.langgraph import SgamStore

from ..conftest import PostgresUrls, Store


def test_history_and_as_of_reads(items: SgamStore, clock: object) -> None:
    ns = ("users", "u1")
    items.put(ns, "prefs", {"theme": "dark"})
    t1 = clock.advance(10)  # type: ignore[attr-defined]
    items.put(ns, "prefs", {"theme": "light"})
    t2 = clock.advance(10)  # type: ignore[attr-defined]
    items.delete(ns, "prefs")
    clock.advance(10)  # type: ignore[attr-defined]
    assert items.get(ns, "prefs") is None
    history = items.history(ns, "prefs")
    assert [v.value for v in history] == [{"theme": "dark"}, {"theme": "light"}]
    assert history[0].valid_to == history[1].valid_from and history[1].valid_to is not None
    assert items.get(ns, "prefs", at=t1).value == {"theme": "light"}  # type: ignore[union-attr]
    assert items.get(ns, "prefs", at=t1 - (t2 - t1)).value == {"theme": "dark"}  # type: ignore[union-attr]
    assert items.get(ns, "prefs", at=t2) is None
    # as the ledger stood at t1 (before the delete was recorded), the value was open-ended
    assert [v.valid_to for v in items.history(ns, "prefs", known_at=t1)][-1] is None
    assert items.get(ns, "prefs", at=t2, known_at=t1).value == {"theme": "light"}  # type: ignore[union-attr]


def test_every_put_has_an_episode_with_provenance(items: SgamStore, memory: Memory) -> None:
    items.put(("a",), "k", {"v": 1})
    [version] = items.history(("a",), "k")
    episode = memory.episode("acme", version.source)
    assert episode is not None and episode.kind == "event"
    assert episode.metadata["langgraph"] == {"op": "put", "namespace": ["a"], "key": "k"}
    assert version.thread_id is None and version.run_id is None


def _raw_count(db: Store, needle: str) -> int:
    """Rows anywhere in the items, ledger and episode tables that still hold ``needle``."""
    queries = ["SELECT count(*) FROM store_items WHERE value LIKE '%{0}%' OR index_text LIKE '%{0}%'",
               "SELECT count(*) FROM assertions WHERE value LIKE '%{0}%'",
               "SELECT count(*) FROM operations WHERE value LIKE '%{0}%'",
               "SELECT count(*) FROM episodes WHERE text LIKE '%{0}%' OR metadata LIKE '%{0}%'"]
    return sum(db.count(q.format(needle)) for q in queries)


def test_delete_keeps_history_and_forget_erases(store: Store) -> None:
    with SgamStore.from_url(store.url, tenant="acme") as items:
        items.put(("docs",), "secret-key", {"text": "zebracode 1234"})
        items.put(("docs",), "secret-key", {"text": "zebracode 5678"})
        items.put(("docs",), "other", {"text": "unrelated"})
        items.delete(("docs",), "secret-key")
        assert items.get(("docs",), "secret-key") is None
        assert len(items.history(("docs",), "secret-key")) == 2
        assert _raw_count(store, "zebracode") > 0
        result = items.forget(("docs",), "secret-key")
        assert result.operations_removed == 3 and result.episodes_removed == 3
        assert items.history(("docs",), "secret-key") == []
        assert _raw_count(store, "zebracode") == 0
        assert _raw_count(store, "secret-key") == 0
        assert items.search(("docs",), query="zebracode")[0].key == "other"
        assert items.get(("docs",), "other") is not None and len(items.history(("docs",), "other")) == 1
        items.put(("docs",), "secret-key", {"text": "fresh"})  # the key can be used again
        assert [v.value for v in items.history(("docs",), "secret-key")] == [{"text": "fresh"}]


def test_tenants_are_isolated(memory: Memory) -> None:
    acme, other = SgamStore(memory, tenant="acme"), SgamStore(memory, tenant="other")
    acme.put(("shared", "ns"), "k", {"owner": "acme"})
    other.put(("shared", "ns"), "k", {"owner": "other"})
    other.put(("only", "other"), "k", {"owner": "other"})
    assert acme.get(("shared", "ns"), "k").value == {"owner": "acme"}  # type: ignore[union-attr]
    assert [i.value for i in acme.search(())] == [{"owner": "acme"}]
    assert acme.list_namespaces() == [("shared", "ns")]
    assert [v.value for v in acme.history(("shared", "ns"), "k")] == [{"owner": "acme"}]
    acme.forget(("shared", "ns"), "k")
    assert other.get(("shared", "ns"), "k").value == {"owner": "other"}  # type: ignore[union-attr]


def test_rls_hides_items_from_a_forgotten_filter(postgres: PostgresUrls) -> None:
    with SgamStore.from_url(postgres.app, tenant="acme") as items:
        items.put(("a",), "k", {"v": 1})
    with psycopg.connect(postgres.app) as conn:
        assert conn.execute("SELECT count(*) FROM store_items").fetchone() == (0,)
        conn.execute("SET LOCAL sgam.tenant = 'other'")
        assert conn.execute("SELECT count(*) FROM store_items").fetchone() == (0,)
        conn.execute("SET LOCAL sgam.tenant = 'acme'")
        assert conn.execute("SELECT count(*) FROM store_items").fetchone() == (1,)


def test_from_url_opens_and_closes(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/s.db"
    with SgamStore.from_url(url, tenant="acme") as items:
        items.put(("a",), "k", {"v": 1})
    with SgamStore.from_url(url, tenant="acme") as items:
        assert items.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    with closing(sqlite3.connect(f"{tmp_path}/s.db")) as conn:
        assert conn.execute("SELECT count(*) FROM store_items").fetchone() == (1,)


def test_bad_arguments(memory: Memory) -> None:
    from sgam import ValidationError

    with pytest.raises(ValidationError):
        SgamStore(memory, tenant="bad tenant!")
    with pytest.raises(ValidationError):
        SgamStore("sqlite:///x.db", tenant="acme")  # type: ignore[arg-type]
    items = SgamStore(memory, tenant="acme")
    with pytest.raises(ValidationError):
        items.history(("a",), "")
    with pytest.raises(ValidationError):
        items.get(("a",), "k", at="not a time")
