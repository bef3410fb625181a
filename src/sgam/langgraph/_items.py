"""Items of the LangGraph store on sgam's ledger.

Each put or delete of an item is a ledger operation on the key ``(subject, attribute)``
(see ``_namespace``) sourced from an episode of its own, which carries the provenance
(LangGraph ``thread_id``/``run_id``); the ``store_items`` row beside it is the current
state that listing and search read, changed in the same transaction. So history, as-of
reads and erasure are the ledger's, and current reads are index lookups.

Expiry: an item's deadline (``expires_at``, from its TTL) is also the deadline of every
operation of its key, so the ledger settles it as it settles any deadline: before the
next unit of work or read of the tenant, or by ``Memory.purge()``, the item is erased
with its history and provenance episodes. Reads filter on ``expires_at`` as well, so
nothing expired is returned in between. A TTL refresh (LangGraph's ``refresh_ttl``) is a
write that moves the deadline on purpose; sgam's own reads never move one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from .._core.errors import ValidationError
from .._core.model import ForgetResult
from .._core.rules import OpKind
from .._core.time import from_micros, optional_micros
from .._core.values import canonical_json, load_value
from ..items.keys import ledger_key
from ..items.lifecycle import forget_item
from ..ledger.service import Ledger
from ..ledger.write import PendingOp
from ..lifecycle.expiry import purge
from ..search.fusion import reciprocal_rank_fusion
from ..search.text import keywords
from ..store import EpisodeRow, ItemRow, Reader, WriteTransaction
from ._filter import matches_filter
from ._index import Indexed, best_cosine
from ._namespace import attribute_of, joined, split, subject_of

Moment = datetime | str
MINUTE = 60_000_000
KEYWORD_CANDIDATES = 1000


@dataclass(frozen=True, slots=True)
class ItemWrite:
    """One put (``value`` None: delete) after validation and indexing."""

    namespace: tuple[str, ...]
    key: str
    value: Mapping[str, Any] | None
    ttl_minutes: float | None
    indexed: Indexed


@dataclass(frozen=True, slots=True)
class Found:
    """A current item as read, with its similarity to the query when it has one."""

    row: ItemRow
    score: float | None = None

    @property
    def value(self) -> dict[str, Any]:
        assert self.row.value is not None
        loaded: dict[str, Any] = load_value(self.row.value)
        return loaded

    @property
    def namespace(self) -> tuple[str, ...]:
        return split(self.row.namespace)


@dataclass(frozen=True, slots=True)
class ItemVersion:
    """One version of an item in the ledger: its value over ``[valid_from, valid_to)``,
    when it was recorded (and superseded in the record), and who wrote it."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    superseded_at: datetime | None
    source: str
    thread_id: str | None
    run_id: str | None


class ItemService:
    """Reads and writes of one tenant's items through the ledger service."""

    def __init__(self, ledger: Ledger, tenant: str) -> None:
        self.ledger = ledger
        self.tenant = tenant

    def now(self) -> int:
        return self.ledger.now()

    # reads --------------------------------------------------------------------------

    def get(
        self, reader: Reader, keys: Sequence[tuple[tuple[str, ...], str]], now: int,
    ) -> dict[tuple[str, str], ItemRow]:
        rows = reader.items([(joined(ns), key) for ns, key in keys])
        return {(row.namespace, row.key): row for row in rows if _live(row, now)}

    def search(
        self, reader: Reader, prefix: tuple[str, ...], flt: dict[str, Any] | None, limit: int, offset: int,
        now: int, query: str | None, query_vector: np.ndarray[Any, Any] | None,
    ) -> list[Found]:
        under = joined(prefix) if prefix else None
        terms = keywords(query) if query else []
        if not terms and query_vector is None:
            if not flt:
                return [Found(row) for row in reader.item_page(under, now, offset, limit)]
            return [Found(row) for row in _filtered(reader.item_page(under, now, 0, None), flt)][offset:offset + limit]
        if query_vector is None and not flt:
            return self._keyword_page(reader, under, terms, limit, offset, now)
        candidates = {(row.namespace, row.key): row for row in _filtered(reader.item_page(under, now, 0, None), flt)}
        rankings: list[list[tuple[str, str]]] = []
        scores: dict[tuple[str, str], float] = {}
        if query_vector is not None:
            for ident, row in candidates.items():
                if row.vectors is not None and row.dims is not None and row.dims == query_vector.shape[0]:
                    scores[ident] = best_cosine(query_vector, row.vectors, row.dims)
            rankings.append(sorted(scores, key=lambda ident: (-scores[ident], ident)))
        if terms:
            hits = reader.keyword_items(under, terms, now, KEYWORD_CANDIDATES)
            rankings.append([ident for ident in hits if ident in candidates])
        fused = reciprocal_rank_fusion(rankings)
        ranked = sorted(fused, key=lambda ident: (-fused[ident], -scores.get(ident, -2.0), ident))
        rest = [ident for ident in candidates if ident not in fused]  # most recent first
        page = (ranked + rest)[offset:offset + limit]
        return [Found(candidates[ident], scores.get(ident)) for ident in page]

    def _keyword_page(
        self, reader: Reader, under: str | None, terms: list[str], limit: int, offset: int, now: int,
    ) -> list[Found]:
        """Keyword matches first, then the other items, most recent first: only the rows
        the page needs are read."""
        hits = reader.keyword_items(under, terms, now, offset + limit)
        wanted = hits[offset:offset + limit]
        found = {(row.namespace, row.key): row for row in reader.items(wanted)}
        page = [Found(found[ident]) for ident in wanted if ident in found and _live(found[ident], now)]
        if len(page) < limit:
            skip = max(0, offset - len(hits))
            seen = set(hits)
            rest = (row for row in reader.item_page(under, now, 0, None) if (row.namespace, row.key) not in seen)
            for index, row in enumerate(rest):
                if index >= skip:
                    page.append(Found(row))
                if len(page) == limit:
                    break
        return page

    def namespaces(self, reader: Reader, prefix: str | None, now: int) -> list[tuple[str, ...]]:
        return [split(text) for text in reader.item_namespaces(prefix, now)]

    # writes -------------------------------------------------------------------------

    def apply(
        self, writes: Sequence[ItemWrite], refresh: Sequence[tuple[str, str]], provenance: dict[str, str],
    ) -> None:
        """Refresh the TTL of items just read, then apply the puts, in one transaction.

        Every key's lock is taken before any row is touched (a refresh updates rows), so a
        refresh and a put of the same item cannot wait for each other. An item's deadline
        is that of every operation of its key: the ledger erases it with its history."""
        service = self.ledger.writes

        def work(txn: WriteTransaction) -> None:
            now = self.now()
            written = [(subject_of(w.namespace), attribute_of(w.key)) for w in writes]
            keys = list(dict.fromkeys([ledger_key(namespace, key) for namespace, key in refresh] + written))
            if keys:
                txn.lock_keys(keys)
            if refresh:
                txn.refresh_items(refresh, now)
                for row in txn.items(refresh):
                    if row.value is not None and row.expires_at is not None:
                        txn.set_key_expiry(*ledger_key(row.namespace, row.key), row.expires_at)
            if not writes:
                return
            rows = {(row.namespace, row.key): row for row in txn.items([(joined(w.namespace), w.key) for w in writes])}
            pending: list[PendingOp] = []
            deadlines: dict[tuple[str, str], int | None] = {}
            for write, key in zip(writes, written, strict=True):
                ops, deadline = self._plan(txn, write, rows.get((joined(write.namespace), write.key)), now, provenance)
                if ops:
                    pending.extend(ops)
                    deadlines[key] = deadline
            if pending:
                service.apply_batch(txn, pending)
            for (subject, attribute), deadline in deadlines.items():
                txn.set_key_expiry(subject, attribute, deadline)

        self.ledger.run_write(self.tenant, work)

    def _plan(
        self, txn: WriteTransaction, write: ItemWrite, row: ItemRow | None, now: int, provenance: dict[str, str],
    ) -> tuple[list[PendingOp], int | None]:
        """The operations of one put or delete and the item's deadline after it. The unit
        of work settled every expired item first, so ``row`` is live, deleted or absent."""
        at = now if row is None else max(now, row.updated_at + 1)
        alive = row is not None and _live(row, now)
        if write.value is None and not alive:
            return [], None
        subject, attribute = subject_of(write.namespace), attribute_of(write.key)
        source = self._episode(txn, write, at, provenance)
        namespace = joined(write.namespace)
        if write.value is None:
            assert row is not None
            txn.put_item(ItemRow(self.tenant, namespace, write.key, None, row.created_at, at, row.expires_at, None,
                                 None, None, None))
            return [_op(OpKind.RETRACT, subject, attribute, at, source)], row.expires_at
        created = row.created_at if alive and row is not None else at
        expires = None if write.ttl_minutes is None else at + int(write.ttl_minutes * MINUTE)
        txn.put_item(ItemRow(
            self.tenant, namespace, write.key, canonical_json(write.value), created, at, expires,
            write.ttl_minutes, write.indexed.text, write.indexed.vectors, write.indexed.dims,
        ))
        return [_op(OpKind.WRITE, subject, attribute, at, source, write.value)], expires

    def _episode(self, txn: WriteTransaction, write: ItemWrite, at: int, provenance: dict[str, str]) -> str:
        """The episode a put is sourced from: what happened, and which run did it."""
        kind = "delete" if write.value is None else "put"
        subject, attribute = subject_of(write.namespace), attribute_of(write.key)
        metadata = {"langgraph": {"op": kind, "namespace": list(write.namespace), "key": write.key, **provenance}}
        row = EpisodeRow(
            tenant=self.tenant, episode_id=f"langgraph:{uuid.uuid4().hex}", occurred_at=at, recorded_at=0,
            text=f"LangGraph store {kind} {subject} {attribute}", speaker=None, kind="event",
            session=provenance.get("thread_id"), metadata=canonical_json(metadata, "metadata"), schema_version=0,
        )
        return self.ledger.writes.add_episode(txn, row).episode_id

    def sweep(self) -> int:
        """Purge the tenant's expired items with their history now; how many went. Reads
        never need it, and any unit of work or ``Memory.purge()`` does the same."""
        _, erased, _ = purge(self.ledger.backend, self.ledger.reach, self.now(), self.tenant)
        return erased.items

    # history, as-of reads, erasure ----------------------------------------------------

    def history(self, namespace: tuple[str, ...], key: str, known_at: Moment | None = None) -> list[ItemVersion]:
        known = optional_micros(known_at, "known_at")
        with self.ledger.read(self.tenant) as reader:
            versions = reader.history(subject_of(namespace), attribute_of(key), known)
            episodes = {v.source: reader.episode(v.source) for v in versions}
        found: list[ItemVersion] = []
        for version in versions:
            episode = episodes[version.source]
            meta = json.loads(episode.metadata).get("langgraph", {}) if episode else {}
            found.append(ItemVersion(
                namespace, key, load_value(version.value), from_micros(version.valid_from),
                None if version.valid_to is None else from_micros(version.valid_to), from_micros(version.recorded_from),
                None if version.recorded_to is None else from_micros(version.recorded_to), version.source,
                meta.get("thread_id"), meta.get("run_id"),
            ))
        return found

    def as_of(self, namespace: tuple[str, ...], key: str, at: Moment | None, known_at: Moment | None) -> ItemRow | None:
        """The item as it held at valid time ``at`` per the ledger as known at ``known_at``."""
        moment = optional_micros(at, "at")
        known = optional_micros(known_at, "known_at")
        when = self.now() if moment is None else moment
        with self.ledger.read(self.tenant) as reader:
            version = reader.get(subject_of(namespace), attribute_of(key), when, known)
            rows = reader.items([(joined(namespace), key)]) if version and version.valid_to is None else []
        if version is None:
            return None
        # open in the ledger: the item's own expiry (not yet swept) may have passed
        if rows and rows[0].value is not None and rows[0].expires_at is not None and rows[0].expires_at <= when:
            return None
        return ItemRow(self.tenant, joined(namespace), key, version.value, version.valid_from, version.valid_from,
                       None, None, None, None, None)

    def forget(self, namespace: tuple[str, ...], key: str) -> ForgetResult:
        """Erase every version of the item, its provenance episodes and its index entries."""

        def work(txn: WriteTransaction) -> tuple[int, int, int]:
            erased = forget_item(txn, joined(namespace), key, self.now(), self.ledger.reach, "store_forget")
            return erased.operations, erased.episodes, 1 if erased.episodes else 0

        counts = self.ledger.run_write(self.tenant, work)
        self.ledger.backend.purge_residue()
        return ForgetResult(*counts)


def _live(row: ItemRow, now: int) -> bool:
    return row.value is not None and (row.expires_at is None or row.expires_at > now)


def _filtered(rows: list[ItemRow], flt: dict[str, Any] | None) -> list[ItemRow]:
    """The rows whose value passes ``flt`` (all of them without one)."""
    if not flt:
        return rows
    return [row for row in rows if row.value is not None and matches_filter(json.loads(row.value), flt)]


def _op(kind: OpKind, subject: str, attribute: str, at: int, source: str, value: Any = None) -> PendingOp:
    return PendingOp(subject=subject, attribute=attribute, kind=kind, valid_at=at, value=value, source=source,
                     memory_type=None, confidence=1.0)


def check_ttl(ttl: object) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not 0 < ttl < 1e9:
        raise ValidationError("ttl", ttl, "must be a positive number of minutes or None")
    return float(ttl)
