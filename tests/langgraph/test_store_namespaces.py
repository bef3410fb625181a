"""Namespaces as LangGraph validates and lists them (ported from LangGraph's store
tests): prefix and suffix conditions, ``*`` wildcards, ``max_depth``, paging, and
prefixes that stop at label boundaries whatever characters the labels hold."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from sgam import ValidationError
from sgam.langgraph import NamespaceError, SgamStore


def _fill(items: SgamStore, namespaces: list[tuple[str, ...]]) -> None:
    items.batch([PutOp(ns, f"id_{i}", {"data": f"value_{i:02d}"}) for i, ns in enumerate(namespaces)])


def test_prefix_suffix_depth_and_paging(items: SgamStore) -> None:
    _fill(items, [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
                  ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789")])
    assert items.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert items.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert items.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert items.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert items.list_namespaces(prefix=("a", "b"), limit=2) == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert items.list_namespaces(prefix=("a", "b"), offset=2) == [("a", "b", "d", "i"), ("a", "b", "f")]
    assert items.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert items.list_namespaces(suffix=("*", "f")) == [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert items.list_namespaces(prefix=("nonexistent",)) == []
    assert items.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_wildcards(items: SgamStore) -> None:
    _fill(items, [("users", "123"), ("users", "456"), ("users", "789", "settings"), ("admin", "users", "789"),
                  ("guests", "123"), ("guests", "456", "preferences")])
    assert items.list_namespaces(prefix=("users", "*")) == [("users", "123"), ("users", "456"),
                                                            ("users", "789", "settings")]
    assert items.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert items.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    items.put(("admin", "users", "settings", "789"), "foo", {"data": "x"})
    assert items.list_namespaces(prefix=("*", "users"), suffix=("settings", "*")) == [
        ("admin", "users", "settings", "789")]


def test_paging_and_depth(items: SgamStore) -> None:
    _fill(items, [("namespace", f"sub_{i:02d}") for i in range(20)])
    for offset in (0, 5, 15):
        assert items.list_namespaces(prefix=("namespace",), limit=5, offset=offset) == [
            ("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]
    _fill(items, [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")])
    expected = [("a", "b"), ("a", "g"), ("h", "i")] + [("namespace", f"sub_{i:02d}") for i in range(20)]
    assert items.list_namespaces(max_depth=2, limit=100) == expected


def test_empty_store_and_only_namespaces_holding_items(items: SgamStore) -> None:
    assert items.list_namespaces() == []
    items.put(("a", "b"), "k", {"v": 1})
    items.put(("c",), "k", {"v": 1})
    items.delete(("c",), "k")
    assert items.list_namespaces() == [("a", "b")]


def test_namespace_validation(items: SgamStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo"), ("a", 1), ("nul\x00",)]:
        with pytest.raises(InvalidNamespaceError) as caught:
            items.put(bad, "foo", doc)  # type: ignore[arg-type]
        assert isinstance(caught.value, ValidationError) and isinstance(caught.value, NamespaceError)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(items.aput(bad, "foo", doc))  # type: ignore[arg-type]
    assert items.list_namespaces() == []
    # "langgraph" is refused only as a root, and only through the public put
    items.put(("foo", "langgraph", "foo"), "bar", doc)
    assert items.get(("foo", "langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert items.search(("foo", "langgraph", "foo"), query="bar")[0].value == doc
    items.delete(("foo", "langgraph", "foo"), "bar")
    assert items.get(("foo", "langgraph", "foo"), "bar") is None
    items.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert items.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert items.search(("langgraph", "foo"))[0].value == doc
    items.delete(("langgraph", "foo"), "bar")
    assert items.get(("langgraph", "foo"), "bar") is None


def test_search_prefix_stops_at_label_boundaries(items: SgamStore) -> None:
    _fill(items, [("foo",), ("foo", "child"), ("foo", "child", "deep"), ("foobar",), ("foobar", "baz"), ("foo2",)])

    def under(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {item.namespace for item in items.search(prefix, limit=100)}

    assert under(("foo",)) == {("foo",), ("foo", "child"), ("foo", "child", "deep")}
    assert under(("foobar",)) == {("foobar",), ("foobar", "baz")}
    assert under(("foo", "child")) == {("foo", "child"), ("foo", "child", "deep")}
    assert under(("foo2",)) == {("foo2",)}
    assert under(("fo",)) == set()
    assert len(under(())) == 6


def test_labels_with_pattern_characters_are_literal(items: SgamStore) -> None:
    _fill(items, [("user_1",), ("user_1", "child"), ("userX1",), ("a%b",), ("axxb",), ("a*b",), ("a?b",), ("a[b]",),
                  ("Case",), ("case",), ("users", "alice"), ("users", "alice\n"), ("users", "alice/x")])

    def under(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {item.namespace for item in items.search(prefix, limit=100)}

    assert under(("user_1",)) == {("user_1",), ("user_1", "child")}
    assert under(("a%b",)) == {("a%b",)}
    assert under(("a*b",)) == {("a*b",)}
    assert under(("a?b",)) == {("a?b",)}
    assert under(("a[b]",)) == {("a[b]",)}
    assert under(("Case",)) == {("Case",)}
    assert under(("users", "alice")) == {("users", "alice")}
    assert items.list_namespaces(suffix=("alice",), limit=100) == [("users", "alice")]
    assert items.list_namespaces(prefix=("users", "alice"), limit=100) == [("users", "alice")]
    assert items.list_namespaces(prefix=("a%b",)) == [("a%b",)]


def test_list_segment_boundaries(items: SgamStore) -> None:
    _fill(items, [("foo",), ("foo", "child"), ("foobar",), ("foobar", "baz"), ("uid", "users", "alice"),
                  ("uid", "users", "malice"), ("uid", "a", "b", "alice")])
    assert items.list_namespaces(prefix=("foo",), limit=100) == [("foo",), ("foo", "child")]
    assert items.list_namespaces(suffix=("alice",), limit=100) == [
        ("uid", "a", "b", "alice"), ("uid", "users", "alice")]
    assert items.list_namespaces(prefix=("uid", "*", "alice"), limit=100) == [("uid", "users", "alice")]
    assert len(items.list_namespaces(prefix=("uid",), limit=100)) == 3


def test_list_namespaces_arguments_are_checked(items: SgamStore) -> None:
    with pytest.raises(ValidationError):
        items.list_namespaces(max_depth=0)
    with pytest.raises(ValidationError):
        items.list_namespaces(limit=-1)
    with pytest.raises(ValidationError):
        items.list_namespaces(offset=-1)
