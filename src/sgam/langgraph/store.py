"""``SgamStore``: LangGraph's ``BaseStore`` on sgam, one tenant per store object.

A batch answers every read from the state before the batch, then applies its puts (the
last put of a key winning; ``value=None`` deletes) with provenance, in one transaction.
Beyond ``BaseStore``: ``history``, ``get(..., at=, known_at=)``, ``forget`` and
``sweep_ttl``. docs/langgraph.md describes how items live in the ledger.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from .._core.errors import ValidationError
from .._core.model import ForgetResult
from .._core.time import from_micros
from .._core.values import canonical_json, check_integer, check_tenant
from ..memory.facade import Memory
from ..store import ItemRow
from ._filter import check_filter
from ._index import Indexed, ItemIndex
from ._items import Found, ItemService, ItemVersion, ItemWrite, Moment, check_ttl
from ._namespace import check_key, check_namespace, check_prefix, joined, literal_prefix, matches
from ._provenance import current_run

MAX_LIMIT = 10_000


@dataclass
class _Plan:
    """A batch sorted out: its reads by position, its puts by key (the last wins)."""

    ops: list[Op]
    puts: dict[tuple[tuple[str, ...], str], PutOp] = field(default_factory=dict)
    texts: dict[tuple[tuple[str, ...], str], tuple[list[str], list[str]]] = field(default_factory=dict)
    queries: list[str] = field(default_factory=list)


class SgamStore(BaseStore):
    """A LangGraph store whose items are versioned, attributed, tenant-scoped facts.

    ``SgamStore(memory, tenant="acme")`` wraps an open ``Memory``;
    ``SgamStore.from_url(url, tenant=...)`` opens one for a ``with`` block. ``index``
    (LangGraph's ``IndexConfig``) adds vectors to the always-on keyword index; ``ttl``
    (``TTLConfig``) sets the default TTL, refresh on read and the sweep interval.
    """

    supports_ttl = True

    def __init__(
        self, memory: Memory, *, tenant: str, index: IndexConfig | None = None, ttl: TTLConfig | None = None,
    ) -> None:
        if not isinstance(memory, Memory):
            raise ValidationError("memory", memory, "must be an sgam Memory")
        self.memory = memory
        self.tenant = check_tenant(tenant)
        self.index_config = index
        self.ttl_config = ttl
        self._index = ItemIndex(index)
        self._items = ItemService(memory.ledger, self.tenant)
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    @classmethod
    @contextmanager
    def from_url(
        cls, url: str, *, tenant: str, index: IndexConfig | None = None, ttl: TTLConfig | None = None,
    ) -> Iterator[SgamStore]:
        """Open the store at ``url`` (``sqlite:///…`` or ``postgresql://…``) for one tenant."""
        with Memory(url) as memory:
            store = cls(memory, tenant=tenant, index=index, ttl=ttl)
            try:
                yield store
            finally:
                store.stop_ttl_sweeper()

    # the BaseStore core ---------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._prepare(ops)
        vectors = self._embed_puts(plan, None)
        queries = self._embed_queries(plan, None)
        return self._run(plan, vectors, queries)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        plan = self._prepare(ops)
        embeddings = self._index.embeddings
        vectors: list[list[float]] | None = None
        queries: dict[str, list[float]] = {}
        if embeddings is not None:
            texts = _put_texts(plan)
            if texts:
                vectors = await embeddings.aembed_documents(texts)
            found = await asyncio.gather(*(embeddings.aembed_query(q) for q in plan.queries))
            queries = dict(zip(plan.queries, found, strict=True))
        provenance = current_run()
        return await asyncio.to_thread(self._run, plan, vectors, queries, provenance)

    def _prepare(self, ops: Iterable[Op]) -> _Plan:
        """Validate every op before anything is read or written."""
        plan = _Plan(list(ops))
        for position, op in enumerate(plan.ops):
            if isinstance(op, GetOp):
                check_namespace(op.namespace, field=f"ops[{position}].namespace", public=False)
                check_key(op.key)
            elif isinstance(op, SearchOp):
                check_prefix(op.namespace_prefix)
                check_filter(op.filter)
                _check_page(op.limit, op.offset)
                if op.query is not None and not isinstance(op.query, str):
                    raise ValidationError("query", op.query, "must be a string or None")
                if op.query and op.query not in plan.queries and self._index.embeddings is not None:
                    plan.queries.append(op.query)
            elif isinstance(op, ListNamespacesOp):
                for condition in op.match_conditions or ():
                    check_prefix(condition.path, "match_conditions")
                _check_page(op.limit, op.offset)
                if op.max_depth is not None and (isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int)
                                                 or op.max_depth < 1):
                    raise ValidationError("max_depth", op.max_depth, "must be a positive integer or None")
            elif isinstance(op, PutOp):
                namespace = check_namespace(op.namespace, field=f"ops[{position}].namespace", public=False)
                key = check_key(op.key)
                if op.value is not None:
                    if not isinstance(op.value, dict):
                        raise ValidationError("value", op.value, "must be a dict (or None to delete)")
                    canonical_json(op.value, f"ops[{position}].value")
                    index = self._index.check_index(op.index)
                    plan.texts[(namespace, key)] = self._index.texts(op.value, index)
                else:
                    plan.texts.pop((namespace, key), None)
                check_ttl(op.ttl)
                plan.puts.pop((namespace, key), None)  # keep the order of last appearance
                plan.puts[(namespace, key)] = op
            else:
                raise ValidationError(f"ops[{position}]", op, "is not a GetOp, SearchOp, ListNamespacesOp or PutOp")
        return plan

    def _embed_puts(self, plan: _Plan, _: None) -> list[list[float]] | None:
        texts = _put_texts(plan)
        if not texts or self._index.embeddings is None:
            return None
        return self._index.embeddings.embed_documents(texts)

    def _embed_queries(self, plan: _Plan, _: None) -> dict[str, list[float]]:
        if self._index.embeddings is None:
            return {}
        return {query: self._index.embeddings.embed_query(query) for query in plan.queries}

    def _run(
        self, plan: _Plan, vectors: list[list[float]] | None, queries: dict[str, list[float]],
        provenance: dict[str, str] | None = None,
    ) -> list[Result]:
        writes = self._writes(plan, vectors)
        query_vectors = {q: self._index.matrix([v], "query embedding")[0] for q, v in queries.items()}
        results: list[Result] = [None] * len(plan.ops)
        refresh: list[tuple[str, str]] = []
        now = self._items.now()
        with self.memory.ledger.read(self.tenant) as reader:
            gets = [op for op in plan.ops if isinstance(op, GetOp)]
            rows = self._items.get(reader, [(tuple(op.namespace), op.key) for op in gets], now) if gets else {}
            for position, op in enumerate(plan.ops):
                if isinstance(op, GetOp):
                    row = rows.get((joined(op.namespace), op.key))
                    results[position] = None if row is None else _item(row)
                    if row is not None and op.refresh_ttl and row.ttl_minutes is not None:
                        refresh.append((row.namespace, row.key))
                elif isinstance(op, SearchOp):
                    found = self._items.search(
                        reader, tuple(op.namespace_prefix), op.filter, op.limit, op.offset, now, op.query,
                        query_vectors.get(op.query) if op.query else None,
                    )
                    results[position] = [_search_item(hit) for hit in found]
                    if op.refresh_ttl:
                        refresh.extend((hit.row.namespace, hit.row.key) for hit in found
                                       if hit.row.ttl_minutes is not None)
                elif isinstance(op, ListNamespacesOp):
                    results[position] = self._list(reader, op, now)
        if writes or refresh:
            self._items.apply(writes, refresh, current_run() if provenance is None else provenance)
        return results

    def _writes(self, plan: _Plan, vectors: list[list[float]] | None) -> list[ItemWrite]:
        writes: list[ItemWrite] = []
        cursor = 0
        for (namespace, key), op in plan.puts.items():
            if op.value is None:
                writes.append(ItemWrite(namespace, key, None, None, Indexed(None)))
                continue
            keyword, embed = plan.texts[(namespace, key)]
            mine = vectors[cursor:cursor + len(embed)] if vectors is not None and embed else None
            cursor += len(embed) if vectors is not None else 0
            writes.append(ItemWrite(namespace, key, op.value, check_ttl(op.ttl), self._index.entry(keyword, mine)))
        if vectors is not None and cursor != len(vectors):
            raise ValidationError("embed", f"<{len(vectors)} embeddings>", f"expected {cursor}, one per text")
        return writes

    def _list(self, reader: Any, op: ListNamespacesOp, now: int) -> list[tuple[str, ...]]:
        conditions = list(op.match_conditions or ())
        prefixes = [literal_prefix(c.path) for c in conditions if c.match_type == "prefix"]
        narrowed = next((p for p in prefixes if p is not None), None)
        found = [ns for ns in self._items.namespaces(reader, narrowed, now)
                 if all(matches(condition, ns) for condition in conditions)]
        if op.max_depth is not None:
            found = sorted({ns[:op.max_depth] for ns in found})
        else:
            found = sorted(found)
        return found[op.offset:op.offset + op.limit]

    # beyond BaseStore -----------------------------------------------------------------

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None,
        at: Moment | None = None, known_at: Moment | None = None,
    ) -> Item | None:
        """The item now; with ``at`` (valid time) and/or ``known_at`` (transaction
        time), the item as it held then, as the ledger stood then."""
        if at is None and known_at is None:
            return super().get(namespace, key, refresh_ttl=refresh_ttl)
        row = self._items.as_of(check_namespace(namespace, public=False), check_key(key), at, known_at)
        return None if row is None else _item(row)

    def history(self, namespace: tuple[str, ...], key: str, *, known_at: Moment | None = None) -> list[ItemVersion]:
        """Every version of the item, oldest first, with the run that wrote it."""
        return self._items.history(check_namespace(namespace, public=False), check_key(key), known_at)

    def forget(self, namespace: tuple[str, ...], key: str) -> ForgetResult:
        """Erase the item and all its history, as if never stored (``delete`` only ends
        the current value and keeps the history)."""
        return self._items.forget(check_namespace(namespace, public=False), check_key(key))

    def sweep_ttl(self) -> int:
        """Purge expired items with their history now; returns how many. Reads never
        needed it: the ledger settles deadlines before every unit of work and read, and
        ``Memory.purge()`` (``sgam purge``, the worker) does it for every tenant."""
        return self._items.sweep()

    async def asweep_ttl(self) -> int:
        return await asyncio.to_thread(self.sweep_ttl)

    def start_ttl_sweeper(self, sweep_interval_minutes: int | None = None) -> threading.Thread:
        """Sweep in a daemon thread every ``sweep_interval_minutes`` (else the
        ``TTLConfig``'s, else 5)."""
        if self._sweeper is not None and self._sweeper.is_alive():
            return self._sweeper
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(minutes * 60):
                self.sweep_ttl()

        self._sweeper = threading.Thread(target=loop, name="sgam-ttl-sweeper", daemon=True)
        self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        if self._sweeper is None:
            return True
        self._stop.set()
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped

    def put(
        self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any = None, *,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> None:
        check_namespace(namespace)
        super().put(namespace, key, value, index, ttl=ttl)

    async def aput(
        self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any = None, *,
        ttl: float | None | NotProvided = NOT_PROVIDED,
    ) -> None:
        check_namespace(namespace)
        await super().aput(namespace, key, value, index, ttl=ttl)


def _put_texts(plan: _Plan) -> list[str]:
    return [text for ident, op in plan.puts.items() if op.value is not None for text in plan.texts[ident][1]]


def _check_page(limit: object, offset: object) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_LIMIT:
        raise ValidationError("limit", limit, f"must be an integer from 0 to {MAX_LIMIT}")
    check_integer(offset, "offset", 0, "must be a non-negative integer")


def _item(row: ItemRow) -> Item:
    found = Found(row)
    return Item(value=found.value, key=row.key, namespace=found.namespace, created_at=from_micros(row.created_at),
                updated_at=from_micros(row.updated_at))


def _search_item(hit: Found) -> SearchItem:
    row = hit.row
    return SearchItem(hit.namespace, row.key, hit.value, from_micros(row.created_at), from_micros(row.updated_at),
                      hit.score)



