from __future__ import annotations

import pytest

from sgam.search import min_max, reciprocal_rank_fusion
from sgam.search.fusion import above_floor, rrf_floor


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["b"] == pytest.approx(1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert max(fused, key=fused.__getitem__) == "a"


def test_rrf_weights_and_empty_rankings() -> None:
    fused = reciprocal_rank_fusion([["a"], ["b"]], k=0, weights=[1.0, 0.5])
    assert fused == {"a": 1.0, "b": 0.5}
    assert reciprocal_rank_fusion([[], []]) == {}


def test_rrf_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="weights"):
        reciprocal_rank_fusion([["a"]], weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="k must"):
        reciprocal_rank_fusion([["a"]], k=-1)


def test_min_max_normalises_to_unit_interval() -> None:
    assert min_max({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert min_max({"a": 7.0, "b": 7.0}) == {"a": 1.0, "b": 1.0}
    assert min_max({}) == {}


def test_above_floor_keeps_the_weakest_candidate_a_share() -> None:
    fused = reciprocal_rank_fusion([["a", "b"]], k=60.0)
    floor = rrf_floor([50], k=60.0, weights=[1.0])
    assert floor == 1 / 111
    scaled = above_floor(fused, floor)
    assert scaled["a"] == 1.0 and 0.9 < scaled["b"] < 1.0
    # a full ranking ends next to the floor: min-max and the floor nearly agree
    full = reciprocal_rank_fusion([[str(i) for i in range(50)]], k=60.0)
    assert above_floor(full, floor)["49"] < 0.02
    assert above_floor({"a": 0.0}, 0.0) == {"a": 1.0} and above_floor({}, 0.1) == {}
    assert rrf_floor([50, 50], k=20.0, weights=[1.0, 0.5]) == 0.5 / 71
    assert rrf_floor([50], k=20.0, weights=[0.0]) == 0.0
