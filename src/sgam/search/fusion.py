"""Rank fusion and score normalisation: plain functions, so they are tested alone."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], *, k: float = 60.0, weights: Sequence[float] | None = None
) -> dict[K, float]:
    """``sum_i w_i / (k + rank_i)`` over the rankings an item appears in (rank from 1).

    RRF needs no score calibration between BM25 and cosine, which is why it fuses them."""
    if k < 0:
        raise ValueError(f"k must be non-negative (got {k})")
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[K, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


def rrf_floor(depths: Sequence[int], *, k: float, weights: Sequence[float]) -> float:
    """The fused score of an item ranked just past the end of the ranking that counts
    least (each ranking cut at its ``depth``): what no evidence would score. Normalising
    from it instead of from the weakest candidate keeps every candidate's share: a short
    ranking (a small store, few matches) is all real matches, and a full one ends close
    to the floor anyway."""
    return min((weight / (k + depth + 1) for depth, weight in zip(depths, weights, strict=True) if weight > 0),
               default=0.0)


def above_floor(scores: Mapping[K, float], floor: float) -> dict[K, float]:
    """Scale to [0, 1] with ``floor`` as 0 and the best score as 1 (all equal: all 1)."""
    if not scores:
        return {}
    high = max(scores.values())
    if high <= floor:
        return dict.fromkeys(scores, 1.0)
    return {key: max(0.0, value - floor) / (high - floor) for key, value in scores.items()}


def min_max(scores: Mapping[K, float]) -> dict[K, float]:
    """Scale to [0, 1]; all-equal scores become 1 (they are equally the best we have)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - low) / (high - low) for key, value in scores.items()}
