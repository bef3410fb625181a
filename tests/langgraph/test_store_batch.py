"""Batches as LangGraph defines them: results in op order, reads before puts, the last
put of a key winning, ``value=None`` deleting (ported from LangGraph's store tests)."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import GetOp, Item, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from sgam import ValidationError
from sgam.langgraph import SgamStore


def test_results_follow_op_order(items: SgamStore) -> None:
    items.put(("test", "foo"), "key1", {"data": "value1"})
    items.put(("test", "bar"), "key2", {"data": "value2"})
    results = items.batch([
        GetOp(("test", "foo"), "key1"),
        PutOp(("test", "bar"), "key2", {"data": "value2"}),
        SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        GetOp(("test",), "key3"),
    ])
    assert len(results) == 5
    first = results[0]
    assert isinstance(first, Item) and first.value == {"data": "value1"} and first.key == "key1"
    assert results[1] is None
    assert isinstance(results[2], list) and [item.key for item in results[2]] == ["key1"]
    assert results[3] == [("test", "bar"), ("test", "foo")]
    assert results[4] is None

    reordered = items.batch([
        SearchOp(("test",), filter=None, limit=5, offset=0),
        GetOp(("test", "bar"), "key2"),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=5, offset=0),
        PutOp(("test",), "key3", {"data": "value3"}),
        GetOp(("test", "foo"), "key1"),
    ])
    assert isinstance(reordered[0], list) and {item.key for item in reordered[0]} == {"key1", "key2"}
    assert isinstance(reordered[1], Item) and reordered[1].value == {"data": "value2"}
    assert reordered[2] == [("test", "bar"), ("test", "foo")]
    assert reordered[3] is None
    assert isinstance(reordered[4], Item) and reordered[4].key == "key1"
    found = items.get(("test",), "key3")
    assert found is not None and found.value == {"data": "value3"}


def test_gets_and_puts(items: SgamStore) -> None:
    assert items.batch([PutOp(("test",), "key1", {"data": "value1"}), PutOp(("test",), "key2", {"data": "value2"}),
                        PutOp(("test",), "key3", None)]) == [None, None, None]
    results = items.batch([GetOp(("test",), "key1"), GetOp(("test",), "key2"), GetOp(("test",), "key3")])
    assert [r.key if r else None for r in results] == ["key1", "key2", None]


def test_reads_see_the_state_before_the_batch(items: SgamStore) -> None:
    items.put(("a",), "k", {"v": 1})
    results = items.batch([
        PutOp(("a",), "k", {"v": 2}),
        GetOp(("a",), "k"),
        PutOp(("a",), "new", {"v": 9}),
        SearchOp(("a",), limit=10),
        ListNamespacesOp(match_conditions=(), limit=10),
        PutOp(("b",), "k", {"v": 3}),
    ])
    got = results[1]
    assert isinstance(got, Item) and got.value == {"v": 1}
    assert isinstance(results[3], list) and [(i.key, i.value) for i in results[3]] == [("k", {"v": 1})]
    assert results[4] == [("a",)]
    assert items.get(("a",), "k").value == {"v": 2}  # type: ignore[union-attr]
    assert items.get(("a",), "new") is not None and items.get(("b",), "k") is not None


def test_last_put_of_a_key_wins(items: SgamStore) -> None:
    items.batch([PutOp(("a",), "k", {"v": 1}), PutOp(("a",), "k", {"v": 2}), PutOp(("a",), "k", {"v": 3})])
    assert items.get(("a",), "k").value == {"v": 3}  # type: ignore[union-attr]
    items.batch([PutOp(("a",), "k", {"v": 4}), PutOp(("a",), "k", None)])
    assert items.get(("a",), "k") is None
    items.batch([PutOp(("a",), "k", None), PutOp(("a",), "k", {"v": 5})])
    assert items.get(("a",), "k").value == {"v": 5}  # type: ignore[union-attr]
    assert [v.value for v in items.history(("a",), "k")][-1] == {"v": 5}


def test_searches_in_one_batch(items: SgamStore) -> None:
    for namespace, key, value in [(("test", "foo"), "key1", {"data": "value1", "tag": "a"}),
                                  (("test", "bar"), "key2", {"data": "value2", "tag": "a"}),
                                  (("test", "baz"), "key3", {"data": "value3", "tag": "b"})]:
        items.put(namespace, key, value)
    results = items.batch([
        SearchOp(("test",), filter={"tag": "a"}, limit=10, offset=0),
        SearchOp(("test",), filter=None, limit=2, offset=0),
        SearchOp(("test", "foo"), filter=None, limit=10, offset=0),
    ])
    assert sorted(item.key for item in results[0]) == ["key1", "key2"]  # type: ignore[union-attr]
    assert len(results[1]) == 2  # type: ignore[arg-type]
    assert [item.namespace for item in results[2]] == [("test", "foo")]  # type: ignore[union-attr]


def test_list_namespaces_in_one_batch(items: SgamStore) -> None:
    data = [("test", "documents", "public"), ("test", "documents", "private"), ("test", "images", "public"),
            ("prod", "documents", "public")]
    for namespace in data:
        items.put(namespace, "doc", {"content": "x"})
    results = items.batch([
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=2, limit=10, offset=0),
        ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("public",)),), max_depth=None, limit=10,
                         offset=0),
    ])
    assert sorted(results[0]) == sorted(data)  # type: ignore[type-var]
    assert results[1] == [("prod", "documents"), ("test", "documents"), ("test", "images")]
    assert sorted(results[2]) == sorted(ns for ns in data if ns[-1] == "public")  # type: ignore[type-var]


def test_basic_operations(items: SgamStore) -> None:
    namespace = ("test", "documents")
    items.put(namespace, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    item = items.get(namespace, "doc1")
    assert item is not None and item.namespace == namespace and item.key == "doc1"
    items.put(namespace, "doc1", {"title": "Updated Document", "content": "Hello, Updated!"})
    updated = items.get(namespace, "doc1")
    assert updated is not None and updated.value["title"] == "Updated Document"
    assert updated.updated_at > item.updated_at
    assert updated.created_at == item.created_at
    assert items.get(("test", "other_documents"), "doc1") is None
    items.delete(namespace, "doc1")
    assert items.get(namespace, "doc1") is None


def test_a_refused_batch_changes_nothing(items: SgamStore) -> None:
    items.put(("a",), "k", {"v": 1})
    with pytest.raises(ValidationError) as caught:
        items.batch([PutOp(("a",), "k", {"v": 2}), PutOp(("a",), "bad", {"v": float("nan")})])
    assert caught.value.field == "ops[1].value.v"
    with pytest.raises(ValidationError):
        items.batch([PutOp(("a",), "k", {"v": 3}), PutOp(("a",), "", {"v": 1})])
    with pytest.raises(ValidationError):
        items.batch([PutOp(("a",), "k", {"v": 3}), SearchOp(("a",), filter={"v": {"$near": 1}})])
    with pytest.raises(ValidationError):
        items.batch([PutOp(("a",), "k", {"v": 3}), PutOp(("a",), "x", ["not", "a", "dict"])])  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        items.batch([PutOp(("a",), "k", {"v": 3}), PutOp(("a",), "x", {"v": 1}, ttl=-1)])
    with pytest.raises(ValidationError):
        items.search(("a",), limit=-1)
    assert items.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    assert items.search(("a",)) and len(items.history(("a",), "k")) == 1


def test_async_batch_and_helpers(items: SgamStore) -> None:
    asyncio.run(_async_batch_and_helpers(items))


async def _async_batch_and_helpers(items: SgamStore) -> None:
    await items.aput(("a", "b"), "k", {"v": 1})
    results = await items.abatch([PutOp(("a", "b"), "k", {"v": 2}), GetOp(("a", "b"), "k")])
    assert results[1].value == {"v": 1}  # type: ignore[union-attr]
    assert (await items.aget(("a", "b"), "k")).value == {"v": 2}  # type: ignore[union-attr]
    assert [i.key for i in await items.asearch(("a",))] == ["k"]
    assert await items.alist_namespaces(prefix=("a",)) == [("a", "b")]
    await items.adelete(("a", "b"), "k")
    assert await items.aget(("a", "b"), "k") is None
