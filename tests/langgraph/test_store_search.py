"""``search``: namespace prefix, filters with LangGraph's operators, limit and offset,
and filter values that are only ever data (ported from LangGraph's store tests)."""

from __future__ import annotations

from sgam.langgraph import SgamStore


def _docs(items: SgamStore) -> None:
    items.put(("test", "docs"), "doc1", {"title": "First Doc", "author": "Alice", "tags": ["important"], "n": 1})
    items.put(("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["draft"], "n": 2})
    items.put(("test", "images"), "img1", {"title": "Image 1", "author": "Alice", "tags": ["final"], "n": 3,
                                           "meta": {"size": 10, "kind": "png"}})


def test_prefix_filter_and_paging(items: SgamStore) -> None:
    _docs(items)
    assert len(items.search(("test",))) == 3
    assert {i.namespace for i in items.search(("test", "docs"))} == {("test", "docs")}
    assert sorted(i.key for i in items.search(("test",), filter={"author": "Alice"})) == ["doc1", "img1"]
    assert len(items.search(("test",), limit=2)) == 2
    assert len(items.search(("test",), offset=2)) == 1
    pages = [items.search(("test",), limit=1, offset=n)[0].key for n in range(3)]
    assert sorted(pages) == ["doc1", "doc2", "img1"]
    assert items.search(("test",), limit=0) == []


def test_most_recently_updated_first(items: SgamStore, clock: object) -> None:
    for key in ("a", "b", "c"):
        items.put(("s",), key, {"k": key})
        clock.advance(1)  # type: ignore[attr-defined]
    items.put(("s",), "a", {"k": "a2"})
    assert [i.key for i in items.search(("s",))] == ["a", "c", "b"]
    assert [i.key for i in items.search(("s",), filter={"k": {"$ne": "zzz"}}, limit=2, offset=1)] == ["c", "b"]


def test_operators(items: SgamStore) -> None:
    _docs(items)

    def keys(flt: dict[str, object]) -> list[str]:
        return sorted(i.key for i in items.search(("test",), filter=flt, limit=100))

    assert keys({"n": {"$gt": 1}}) == ["doc2", "img1"]
    assert keys({"n": {"$gte": 2, "$lt": 3}}) == ["doc2"]
    assert keys({"n": {"$lte": 1}}) == ["doc1"]
    assert keys({"n": {"$eq": 3}}) == ["img1"]
    assert keys({"author": {"$ne": "Alice"}}) == ["doc2"]
    assert keys({"tags": ["draft"]}) == ["doc2"]
    assert keys({"meta": {"kind": "png"}}) == ["img1"]
    assert keys({"meta": {"size": {"$gt": 5}}}) == ["img1"]
    assert keys({"author": "Alice", "n": {"$gt": 1}}) == ["img1"]
    assert keys({"missing": {"$gt": 0}}) == []
    assert keys({"missing": None}) == ["doc1", "doc2", "img1"]


def test_filter_values_are_data(items: SgamStore) -> None:
    items.put(("s",), "k", {"name": "x'; DROP TABLE store_items; --", "flag": True, "n": 5, "a-b": 1, "1x": 2})
    for hostile in ["' OR '1'='1", "x'; DROP TABLE store_items; --", "%", "_", "*", "\\", '"']:
        found = items.search(("s",), filter={"name": hostile})
        assert [i.key for i in found] == (["k"] if hostile == "x'; DROP TABLE store_items; --" else [])
    assert items.search(("s",), filter={"' OR 1=1 --": "x"}) == []
    assert [i.key for i in items.search(("s",), filter={"flag": True})] == ["k"]
    assert items.search(("s",), filter={"flag": "true"}) == []
    assert [i.key for i in items.search(("s",), filter={"n": 5})] == ["k"]
    assert items.search(("s",), filter={"n": "5"}) == []
    assert [i.key for i in items.search(("s",), filter={"a-b": 1, "1x": 2})] == ["k"]
    assert items.get(("s",), "k") is not None


def test_keyword_query_without_an_index(items: SgamStore) -> None:
    items.put(("n",), "a", {"text": "the quick brown fox"})
    items.put(("n",), "b", {"text": "a lazy dog sleeps"})
    items.put(("n",), "c", {"text": "foxes and dogs"}, index=False)
    found = items.search(("n",), query="lazy dog")
    assert [i.key for i in found][0] == "b"
    assert {i.key for i in found} == {"a", "b", "c"}  # the rest follow, as in LangGraph's reference items
    assert all(i.score is None for i in found)
    assert [i.key for i in items.search(("n",), query="quick", limit=1)] == ["a"]
    assert [i.key for i in items.search(("n",), query="foxes", limit=1)] != ["c"]
