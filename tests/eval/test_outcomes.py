from __future__ import annotations

from sgam.eval.outcomes import Outcome, choose, cross_validate, outcome, report


def _o(group: str, turn10: bool, session5: bool, category: str = "c") -> Outcome:
    return Outcome(group, category, (False, False, turn10, turn10), (False, False, turn10, turn10),
                   (False, session5, session5))


def test_outcome_counts_any_all_and_sessions() -> None:
    found = outcome("g", "c", ["x", "e1", "y"], ["s2", "s1"], ["e1", "e2"], {"s1"})
    assert found.turn_any == (False, True, True, True)
    assert found.turn_all == (False, False, False, False)
    assert found.session_any == (False, True, True)
    assert outcome("g", "c", ["x"], ["s"], [], {"s"}).turn_any == (False, False, False, False)


def test_each_group_is_scored_with_the_setting_chosen_on_the_others() -> None:
    # "a" is best on g1 and g2, "b" only on g3: g3 must be scored with "a".
    runs = {
        "a": [_o("g1", True, True), _o("g2", True, True), _o("g3", False, False)],
        "b": [_o("g1", False, False), _o("g2", False, False), _o("g3", True, True)],
    }
    assert choose(runs, {"g1", "g2"}) == "a"
    result = cross_validate(runs, {"bm25": runs["b"]})
    assert [f["chosen"] for f in result["folds"]] == ["a", "a", "a"]
    assert result["cross_validated"]["turn_recall_any"]["10"]["pooled"] == round(2 / 3, 4)
    assert result["tuned"]["chosen"] == "a"
    assert result["gap_tuned_minus_cv"]["turn_recall_any@10"] == 0.0
    assert result["baseline_bm25"]["turn_recall_any"]["10"]["mean"] == round(1 / 3, 4)
    assert set(result["cross_validated"]["per_category"]) == {"c"}


def test_ties_go_to_the_first_listed_setting() -> None:
    same = [_o("g1", True, False)]
    assert choose({"first": same, "second": same}, {"g1"}) == "first"
    assert report(same)["turn_recall_any"]["10"] == 1.0
