"""A process's copies of tenants' episode vectors, checked against the vector tally
(``episode_vector_counts``) in the snapshot of the search that uses them.

Without an HNSW index, the exact vector channel read every vector of the tenant from
the server on every search (60-120 ms at 100,000 episodes). A copy in process is ranked
by numpy as on SQLite (``store/_vectors.py``) in a few milliseconds. It is used only when
it is exactly the tenant's vectors as the search's snapshot sees them: the tally equals
the one the copy was made at (above all its count of changes, which only grows; the count
and key sum besides catch a TRUNCATE that started the counts again). Otherwise the copy catches up
in that snapshot: the vectors appended after its last key; if the count and the sum of
keys then still differ (a writer committed keys out of order, or vectors were erased),
the keys alone, to drop what is gone and fetch what is missing; a rewritten vector
(the rewrite count moved) reloads it whole. A copy that cannot be made to match (a
caller outside a read's single snapshot) is not used: the caller falls back to the
server's exact statement.

Vectors come as one ``bytea`` per chunk of rows: fixed-size records (key, times, and
pgvector's binary ``vector``) that numpy reads without a Python object per value.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._vectors import VectorCache, appended
from .adapters import _PG_EPOCH_US
from .session import PostgresSession

CHUNK_ROWS = 16_384
"""Vectors per statement while loading (17 MB at 256 dimensions)."""
HELD_BYTES = 1 << 30
"""Memory the copies of one search index may hold; the least recently used go first."""

TALLY = (
    "SELECT coalesce(sum(vectors), 0), coalesce(sum(key_sum), 0), coalesce(sum(changes), 0), "
    "coalesce(sum(rewrites), 0), to_regclass(?) IS NOT NULL FROM episode_vector_counts "
    "WHERE tenant = ? AND model = ? AND dims = ?"
)
"""The tenant's vectors of a model and dimension as the snapshot sees them, and whether
the dimension has an HNSW index (then the server's index serves the search)."""

_RECORD = ("int8send(v.seq) || timestamptz_send(v.occurred_at) || timestamptz_send(v.recorded_at) "
           "|| vector_send(v.embedding)")


@dataclass(frozen=True)
class Tally:
    vectors: int
    key_sum: int
    changes: int
    rewrites: int


@dataclass
class _Copy:
    cache: VectorCache
    tally: Tally


def _records(dims: int) -> np.dtype[Any]:
    return np.dtype([("seq", ">i8"), ("occurred", ">i8"), ("recorded", ">i8"), ("dims", ">i2"),
                     ("unused", ">i2"), ("vector", ">f4", (dims,))])


def _decode(blob: bytes | None, dims: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                   npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    rows = np.frombuffer(blob or b"", dtype=_records(dims))
    return (rows["seq"].astype(np.int64), rows["occurred"].astype(np.int64) + _PG_EPOCH_US,
            rows["recorded"].astype(np.int64) + _PG_EPOCH_US, rows["vector"].astype(np.float32).reshape(-1, dims))


class EpisodeVectors:
    """The copies of one search index, by (tenant, model, dimension)."""

    def __init__(self, held_bytes: int = HELD_BYTES) -> None:
        self._copies: OrderedDict[tuple[str, str, int], _Copy] = OrderedDict()
        self._lock = threading.Lock()
        self._held_bytes = held_bytes

    def forget(self, tenant: str, keep: Collection[str]) -> None:
        """Drop the tenant's copies of the models not in ``keep``."""
        with self._lock:
            for key in [key for key in self._copies if key[0] == tenant and key[1] not in keep]:
                del self._copies[key]

    def current(self, db: PostgresSession, tenant: str, model: str, dims: int,
                tally_row: tuple[Any, ...] | None) -> VectorCache | None:
        """The tenant's vectors as ``db``'s snapshot holds them (``tally_row``: what
        ``TALLY`` returned in it), or None when the dimension has an HNSW index or no
        copy matching the snapshot could be made."""
        if tally_row is None or bool(tally_row[4]):
            return None
        tally = Tally(*(int(value) for value in tally_row[:4]))
        key = (tenant, model, dims)
        with self._lock:
            copy = self._copies.get(key)
            if copy is not None:
                self._copies.move_to_end(key)
        if copy is not None and copy.tally == tally:  # the count of changes alone would do, but for a TRUNCATE
            return copy.cache
        cache = self._caught_up(db, tenant, model, dims, copy, tally)
        if cache is None:
            return None
        with self._lock:
            self._copies[key] = _Copy(cache, tally)
            self._copies.move_to_end(key)
            held = sum(kept.cache.nbytes() for kept in self._copies.values())
            while held > self._held_bytes and len(self._copies) > 1:
                _, gone = self._copies.popitem(last=False)
                held -= gone.cache.nbytes()
        return cache

    def _caught_up(self, db: PostgresSession, tenant: str, model: str, dims: int, copy: _Copy | None,
                   tally: Tally) -> VectorCache | None:
        """``copy`` brought to ``tally`` in ``db``'s snapshot, or None if it cannot be."""
        if copy is not None and copy.tally.rewrites == tally.rewrites:
            cache = _append(copy.cache, *self._load(db, tenant, model, dims, after=int(copy.cache.keys[-1])
                                                   if len(copy.cache.keys) else 0))
            if _matches(cache, tally):
                return cache
            cache = self._mended(db, tenant, model, dims, cache)
        else:
            cache = _append(VectorCache(), *self._load(db, tenant, model, dims, after=0))
        return cache if _matches(cache, tally) else None

    @staticmethod
    def _load(db: PostgresSession, tenant: str, model: str, dims: int, after: int) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]
    ]:
        """Every vector with a key above ``after``, a chunk per statement, in key order."""
        parts = []
        while True:
            row = db.row(
                f"SELECT count(*), max(s), string_agg(r, ''::bytea ORDER BY s) FROM (SELECT v.seq AS s, {_RECORD} AS r "
                f"FROM episode_vectors v WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims} AND v.seq > ? "
                "ORDER BY v.seq LIMIT ?) AS c", (tenant, model, after, CHUNK_ROWS))
            if row is None or not row[0]:
                break
            parts.append(_decode(row[2], dims))
            if int(row[0]) < CHUNK_ROWS:
                break
            after = int(row[1])
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, np.zeros((0, dims), dtype=np.float32)
        keys, occurred, recorded, matrix = zip(*parts, strict=True)
        return np.concatenate(keys), np.concatenate(occurred), np.concatenate(recorded), np.vstack(matrix)

    @staticmethod
    def _mended(db: PostgresSession, tenant: str, model: str, dims: int, cache: VectorCache) -> VectorCache:
        """``cache`` without the keys the snapshot no longer holds and with those it
        missed (committed out of key order), by the keys alone."""
        row = db.row(f"SELECT string_agg(int8send(v.seq), ''::bytea ORDER BY v.seq) FROM episode_vectors v "
                     f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims}", (tenant, model))
        stored = np.frombuffer((row[0] if row else None) or b"", dtype=">i8").astype(np.int64)
        kept = np.isin(cache.keys, stored)
        missing = stored[~np.isin(stored, cache.keys)]
        assert cache.recorded is not None
        keys, times, recorded, matrix = cache.keys[kept], cache.times[kept], cache.recorded[kept], cache.matrix[kept]
        for start in range(0, len(missing), CHUNK_ROWS):
            found = db.row(
                f"SELECT string_agg({_RECORD}, ''::bytea) FROM episode_vectors v WHERE v.tenant = ? AND v.model = ? "
                f"AND v.dims = {dims} AND v.seq = ANY(?::bigint[])",
                (tenant, model, [int(key) for key in missing[start:start + CHUNK_ROWS]]))
            more = _decode(found[0] if found else None, dims)
            keys, times, recorded = (np.concatenate([keys, more[0]]), np.concatenate([times, more[1]]),
                                     np.concatenate([recorded, more[2]]))
            matrix = np.vstack([matrix, more[3]])
        order = np.argsort(keys, kind="stable")
        return VectorCache(keys=keys[order], times=times[order], matrix=matrix[order], recorded=recorded[order])


def _append(cache: VectorCache, keys: npt.NDArray[np.int64], times: npt.NDArray[np.int64],
            recorded: npt.NDArray[np.int64], matrix: npt.NDArray[np.float32]) -> VectorCache:
    """A new copy: ``cache`` followed by rows whose keys are all above its last."""
    if not len(keys):
        return cache
    if not len(cache.keys):
        return VectorCache(keys=keys, times=times, matrix=matrix, recorded=recorded)
    assert cache.recorded is not None
    return replace(cache, keys=np.concatenate([cache.keys, keys]), times=np.concatenate([cache.times, times]),
                   matrix=np.vstack([cache.matrix, matrix]), recorded=np.concatenate([cache.recorded, recorded]),
                   prefix=appended(cache.prefix, matrix))


def _matches(cache: VectorCache, tally: Tally) -> bool:
    return len(cache.keys) == tally.vectors and int(cache.keys.sum(dtype=np.int64)) == tally.key_sum
