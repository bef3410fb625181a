"""A tenant's episode vectors held in process, and their ranking by cosine: the vector
channel both backends run in numpy once their copy is known to be current (SQLite by its
search generation, PostgreSQL by its vector tally, each in the search's own snapshot).

Large tenants are ranked in two passes: the leading dimensions of every vector pick
candidates, which are then ranked exactly (``PREFIX_ROWS`` and below)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ._requests import SearchFilter

PREFIX_ROWS = 20_000
"""From this many vectors of a tenant on, a search scans a prefix of every vector first
and ranks only the best of that pass exactly. Model2Vec-style static models keep their
dimensions in PCA order, so the leading dimensions carry most of the variance."""
PREFIX_SHARE = 1 / 4
"""The share of dimensions the first pass reads: 64 of 256, 26 MB at 100k rows."""
PREFIX_CANDIDATES = 4_000
"""Rows the first pass keeps for the exact ranking (at least ``PER_RESULT`` per result
asked). At 100k episodes of the recall benchmark, 64 dimensions and 4,000 candidates kept
recall@10 against the exact scan at 0.99 and recall@50 at 0.98 (docs/recall.md, "Vector
index choice")."""
PER_RESULT = 80


def _dot(matrix: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``matrix @ vector`` on the calling thread. numpy hands ``@`` to a multi-threaded BLAS
    whose workers spin while they wait: on a busy machine a scan then waits for a worker
    whose core another process holds (a tail several times the median), and it keeps a
    second core busy for a product one core does nearly as fast."""
    product: npt.NDArray[np.float32] = np.einsum("ij,j->i", matrix, vector)
    return product


@dataclass
class VectorCache:
    """One tenant's vectors of one model: keys (episode ``seq``) ascending, the episodes'
    valid times (``times``) and, where the backend keeps them, their recording times
    (``recorded``), one unit-length row each."""

    generation: int = -1
    keys: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    times: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    matrix: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    prefix: npt.NDArray[np.float32] | None = None
    recorded: npt.NDArray[np.int64] | None = None

    def prefix_columns(self) -> npt.NDArray[np.float32] | None:
        """The leading dimensions of every row, one contiguous row per dimension (built on
        first use), or None while the tenant is small enough for the exact scan alone.
        Stored by dimension because the product then runs along contiguous memory: a
        fifth faster than by row on one core."""
        rows, dims = self.matrix.shape
        width = int(dims * PREFIX_SHARE)
        if rows < PREFIX_ROWS or width < 64:  # a narrower first pass was never measured
            return None
        if self.prefix is None or self.prefix.shape != (width, rows):
            self.prefix = columns(self.matrix, width)
        return self.prefix

    def spans(self, flt: SearchFilter) -> bool:
        """Whether ``flt``'s time range holds every cached row (no mask needed for it)."""
        if not len(self.times):
            return True
        return ((flt.since is None or flt.since <= int(self.times.min()))
                and (flt.until is None or flt.until >= int(self.times.max())))

    def nbytes(self) -> int:
        """What the copy holds in memory (the prefix counted once it is built)."""
        held = self.keys.nbytes + self.times.nbytes + self.matrix.nbytes
        return held + (0 if self.prefix is None else self.prefix.nbytes) + (
            0 if self.recorded is None else self.recorded.nbytes)


def time_mask(cache: VectorCache, flt: SearchFilter) -> npt.NDArray[np.bool_] | None:
    """The rows ``flt``'s valid-time range (and, with ``recorded``, its transaction time)
    admits, or None when it admits them all."""
    known = None if cache.recorded is None else flt.known_at
    if cache.spans(flt) and known is None:
        return None
    mask = np.ones(len(cache.keys), dtype=bool)
    if flt.since is not None:
        mask &= cache.times >= flt.since
    if flt.until is not None:
        mask &= cache.times <= flt.until
    if known is not None and cache.recorded is not None:
        mask &= cache.recorded <= known
    return mask


def nearest(
    cache: VectorCache, vector: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_] | None, limit: int,
) -> list[int]:
    """The keys of the ``limit`` rows closest to ``vector`` among those ``mask`` admits."""
    if cache.matrix.shape[0] == 0 or cache.matrix.shape[1] != vector.shape[0]:
        return []
    rows = _prefix_candidates(cache, vector, mask, limit)
    scores = _dot(cache.matrix if rows is None else np.take(cache.matrix, rows, axis=0), vector)
    if mask is not None:
        scores = np.where(mask if rows is None else mask[rows], scores, -np.inf)
    top = best(scores, limit)
    found = top if rows is None else rows[top]
    return [int(cache.keys[i]) for i, score in zip(found, scores[top], strict=True) if np.isfinite(score)]


def best(scores: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.intp]:
    """Indexes of the ``count`` highest scores, best first (ties by position)."""
    if count < len(scores):
        top = np.argpartition(-scores, count - 1)[:count]
    else:
        top = np.arange(len(scores))
    result: npt.NDArray[np.intp] = top[np.argsort(-scores[top], kind="stable")]
    return result


def columns(matrix: npt.NDArray[np.float32], width: int, block: int = 1_024) -> npt.NDArray[np.float32]:
    """The leading ``width`` dimensions of every row, one contiguous row per dimension.
    Copied a block of rows at a time: a whole-matrix transpose strides through memory and
    took 33 ms at 100k rows, in blocks 13 ms."""
    found = np.empty((width, matrix.shape[0]), dtype=np.float32)
    for start in range(0, matrix.shape[0], block):
        found[:, start:start + block] = matrix[start:start + block, :width].T
    return found


def appended(prefix: npt.NDArray[np.float32] | None, rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32] | None:
    """``prefix`` extended by the columns of appended ``rows`` (3-7 ms at 100k, against a
    rebuild's 13 ms), or None to build it on the next search."""
    if prefix is None or not len(rows):
        return prefix
    if rows.shape[1] < prefix.shape[0]:
        return None
    return np.concatenate([prefix, rows[:, : prefix.shape[0]].T], axis=1)


def _prefix_candidates(
    cache: VectorCache, vector: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_] | None, limit: int,
) -> npt.NDArray[np.intp] | None:
    """Rows worth an exact score, picked by the pass over leading dimensions (in row
    order); None means score them all."""
    prefix = cache.prefix_columns()
    wanted = max(PREFIX_CANDIDATES, PER_RESULT * limit)
    if prefix is None or wanted >= len(cache.keys):
        return None
    rough: npt.NDArray[np.float32] = np.einsum("ji,j->i", prefix, vector[: prefix.shape[0]])
    if mask is not None:
        rough = np.where(mask, rough, -np.inf)
    cut = len(rough) - wanted
    rows: npt.NDArray[np.intp] = np.sort(np.argpartition(rough, cut)[cut:])
    return rows
