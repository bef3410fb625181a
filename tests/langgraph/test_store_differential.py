"""Random batches against ``SgamStore`` and LangGraph's reference ``InMemoryStore``:
every get, search and namespace listing must agree.

Two documented differences are normalised: searches are compared as sets (the
reference returns insertion order, sgam most recently updated first, as LangGraph's SQL
stores do), and the reference is made to list only namespaces that hold items."""

from __future__ import annotations

import json
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import BaseStore, GetOp, Item, ListNamespacesOp, MatchCondition, Op, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from sgam import Memory
from sgam.langgraph import SgamStore


class ReferenceStore(InMemoryStore):
    """``InMemoryStore`` listing only namespaces that hold items (it also lists one
    whose items were all deleted, or that was merely read)."""

    def _handle_list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        for namespace in [ns for ns, items in self._data.items() if not items]:
            del self._data[namespace]
        return super()._handle_list_namespaces(op)


NAMESPACES = [("a",), ("a", "b"), ("a", "b", "c"), ("a", "c"), ("ab",), ("b", "c"), ("b", "a", "c")]
PREFIXES = [(), ("a",), ("a", "b"), ("b",), ("ab",), ("c",)]
KEYS = ["k1", "k2", "k3"]
FILTERS: list[dict[str, Any] | None] = [
    None, {"tag": "x"}, {"n": {"$gt": 2}}, {"n": {"$lte": 1}, "tag": "y"}, {"n": {"$ne": 3}},
    {"nested": {"on": True}}, {"n": {"$gte": 1, "$lt": 4}}, {"tag": {"$eq": "y"}},
]
CONDITIONS = [(), (MatchCondition("prefix", ("a",)),), (MatchCondition("suffix", ("c",)),),
              (MatchCondition("prefix", ("*", "b")),), (MatchCondition("suffix", ("*", "c")),),
              (MatchCondition("prefix", ("a",)), MatchCondition("suffix", ("c",)))]

values = st.one_of(st.none(), st.fixed_dictionaries({
    "n": st.integers(0, 5), "tag": st.sampled_from(["x", "y"]),
    "nested": st.fixed_dictionaries({"on": st.booleans()}),
}))
ops = st.one_of(
    st.builds(lambda ns, key, value: PutOp(ns, key, value), st.sampled_from(NAMESPACES), st.sampled_from(KEYS),
              values),
    st.builds(lambda ns, key: GetOp(ns, key), st.sampled_from(NAMESPACES), st.sampled_from(KEYS)),
    st.builds(lambda prefix, flt, limit, offset, query: SearchOp(prefix, flt, limit, offset, query),
              st.sampled_from(PREFIXES), st.sampled_from(FILTERS), st.integers(0, 4), st.integers(0, 3),
              st.sampled_from([None, None, "x y"])),
    st.builds(lambda conditions, depth, limit, offset: ListNamespacesOp(conditions, depth, limit, offset),
              st.sampled_from(CONDITIONS), st.sampled_from([None, 1, 2]), st.integers(1, 5), st.integers(0, 3)),
)


def _item(item: Item | None) -> Any:
    return None if item is None else (item.namespace, item.key, json.dumps(item.value, sort_keys=True))


def _everything(store: BaseStore, op: SearchOp) -> list[Any]:
    return [_item(item) for item in store.search(op.namespace_prefix, filter=op.filter, query=op.query, limit=1000)]


def _check(op: Op, ours: Any, theirs: Any, before: tuple[list[Any], list[Any]] | None) -> None:
    if isinstance(op, GetOp):
        assert _item(ours) == _item(theirs)
    elif isinstance(op, SearchOp):
        assert before is not None  # what each store held before the batch
        mine, universe = before
        found = [_item(item) for item in ours]
        assert sorted(mine) == sorted(universe)
        assert found == mine[op.offset:op.offset + op.limit]  # sgam's pages partition its full order
        if op.offset == 0 and op.limit >= len(universe):  # a page holding everything: the same items
            assert set(found) == {_item(item) for item in theirs}
    elif isinstance(op, ListNamespacesOp):
        assert ours == theirs
    else:
        assert ours is None and theirs is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(ops, min_size=1, max_size=6), min_size=1, max_size=6))
def test_random_batches_agree_with_the_reference(memory: Memory, batches: list[list[Op]]) -> None:
    store = SgamStore(memory, tenant=f"t{uuid.uuid4().hex[:12]}")  # a fresh tenant per example
    reference = ReferenceStore()
    for batch in batches:
        before = [(_everything(store, op), _everything(reference, op)) if isinstance(op, SearchOp) else None
                  for op in batch]
        ours, theirs = store.batch(batch), reference.batch(batch)
        assert len(ours) == len(theirs) == len(batch)
        for op, mine, expected, seen in zip(batch, ours, theirs, before, strict=True):
            _check(op, mine, expected, seen)
    for namespace in NAMESPACES:
        for key in KEYS:
            assert _item(store.get(namespace, key)) == _item(reference.get(namespace, key))
