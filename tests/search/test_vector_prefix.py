"""The two-pass vector scan of large tenants (SQLite, and PostgreSQL's copies in process)
against the exact scan it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from sgam.store._vectors import (
    PER_RESULT,
    PREFIX_CANDIDATES,
    PREFIX_ROWS,
    _dot,
    _prefix_candidates,
)
from sgam.store._vectors import VectorCache as _VectorCache
from sgam.store._vectors import appended as _appended
from sgam.store._vectors import best as _best
from sgam.store._vectors import columns as _columns


def _cache(rows: int, dims: int = 256, seed: int = 7) -> _VectorCache:
    """Unit vectors whose variance falls off with the dimension, as in a PCA-ordered model."""
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dims)).astype(np.float32) / np.sqrt(np.arange(1, dims + 1, dtype=np.float32))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    keys = np.arange(1, rows + 1, dtype=np.int64)
    return _VectorCache(1, keys, np.zeros(rows, dtype=np.int64), matrix)


def test_small_tenants_are_scanned_exactly() -> None:
    cache = _cache(PREFIX_ROWS - 1)
    assert _prefix_candidates(cache, cache.matrix[0], None, 10) is None


def test_narrow_vectors_are_scanned_exactly() -> None:
    cache = _cache(PREFIX_ROWS + 5_000, dims=128)
    assert _prefix_candidates(cache, cache.matrix[0], None, 10) is None


def test_the_scan_product_is_the_matrix_product() -> None:
    cache = _cache(3_000)
    query = cache.matrix[5] + cache.matrix[9]
    assert np.allclose(_dot(cache.matrix, query), cache.matrix @ query, atol=1e-6)
    assert np.allclose(_dot(cache.matrix[[4, 2, 7], :100], query[:100]), cache.matrix[[4, 2, 7], :100] @ query[:100],
                       atol=1e-6)


def test_prefix_pass_keeps_the_exact_top_ten() -> None:
    cache = _cache(PREFIX_ROWS + 5_000)
    rng = np.random.default_rng(1)
    found = 0
    for _ in range(20):
        query = cache.matrix[rng.integers(len(cache.keys))] + 0.3 * rng.standard_normal(256).astype(np.float32)
        query /= np.linalg.norm(query)
        rows = _prefix_candidates(cache, query, None, 10)
        assert rows is not None and len(rows) == PREFIX_CANDIDATES
        assert np.all(np.diff(rows) > 0)
        exact = set(_best(cache.matrix @ query, 10).tolist())
        found += len(exact & set(rows.tolist()))
    assert found / 200 >= 0.98


@pytest.mark.parametrize(("limit", "share"), [(10, 7), (10, 50), (100, 7), (100, 20)])
def test_prefix_pass_never_offers_masked_rows(limit: int, share: int) -> None:
    cache = _cache(PREFIX_ROWS + 5_000)
    mask = np.zeros(len(cache.keys), dtype=bool)
    mask[::share] = True
    rows = _prefix_candidates(cache, cache.matrix[3], mask, limit)
    assert rows is not None
    assert len(rows) == max(PREFIX_CANDIDATES, PER_RESULT * limit)
    allowed = int(mask.sum())
    assert mask[rows].sum() == min(len(rows), allowed)


def test_a_limit_the_first_pass_cannot_narrow_scans_everything() -> None:
    cache = _cache(PREFIX_ROWS + 5_000)
    assert _prefix_candidates(cache, cache.matrix[3], None, len(cache.keys) // PER_RESULT + 1) is None


def test_prefix_columns_are_the_leading_dimensions_by_dimension() -> None:
    cache = _cache(PREFIX_ROWS + 2_500)
    columns = cache.prefix_columns()
    assert columns is not None and columns.flags["C_CONTIGUOUS"]
    assert np.array_equal(columns, cache.matrix[:, :64].T)
    assert np.array_equal(_columns(cache.matrix[:3_000], 64, block=7), cache.matrix[:3_000, :64].T)


def test_appended_rows_extend_the_prefix_as_a_rebuild_would() -> None:
    cache = _cache(PREFIX_ROWS + 2_500)
    more = _cache(300, seed=9).matrix
    columns = cache.prefix_columns()
    extended = _appended(columns, more)
    grown = _VectorCache(2, np.arange(len(cache.keys) + 300, dtype=np.int64),
                         np.zeros(len(cache.keys) + 300, dtype=np.int64), np.vstack([cache.matrix, more]), extended)
    assert extended is not None and grown.prefix_columns() is extended
    assert np.array_equal(extended, _columns(grown.matrix, 64))
    assert _appended(None, more) is None
    assert _appended(columns, more[:0]) is columns
