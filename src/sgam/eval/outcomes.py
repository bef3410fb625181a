"""Per-question outcomes, their tallies, and leave-one-group-out cross-validation.

An outcome records, for one question and one search configuration, whether any (and
all) evidence turns were in the top k and whether any evidence session was in the top k
sessions. Everything reported is a share of questions; cross-validation picks, for each
held-out group (a conversation, a LongMemEval instance block), the configuration with the
best objective on the other groups and scores it on the held-out one."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TURN_KS = (1, 5, 10, 20)
SESSION_KS = (1, 5, 10)
OBJECTIVE = (("turn_recall_any", 10), ("session_recall_any", 5))

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One question under one configuration; ``group`` is the unit held out."""

    group: str
    category: str
    turn_any: tuple[bool, ...]
    turn_all: tuple[bool, ...]
    session_any: tuple[bool, ...]
    has_turns: bool = True


def outcome(group: str, category: str, ranked: Sequence[str], sessions: Sequence[str],
            evidence: Sequence[str], wanted: set[str]) -> Outcome:
    """``ranked``: episode ids best first; ``sessions``: session ids best first."""
    tops = [set(ranked[:k]) for k in TURN_KS]
    return Outcome(
        group, category,
        tuple(bool(evidence) and any(e in top for e in evidence) for top in tops),
        tuple(bool(evidence) and all(e in top for e in evidence) for top in tops),
        tuple(bool(wanted & set(sessions[:k])) for k in SESSION_KS),
        bool(evidence),
    )


def _share(outcomes: Sequence[Outcome], pick: Callable[[Outcome], tuple[bool, ...]],
           ks: Sequence[int]) -> dict[str, float]:
    n = len(outcomes)
    return {str(k): round(sum(pick(o)[i] for o in outcomes) / n, 4) if n else 0.0 for i, k in enumerate(ks)}


def tally(outcomes: Sequence[Outcome]) -> Record:
    """Turn shares count only questions with an evidence turn (``turn_questions``)."""
    turns = [o for o in outcomes if o.has_turns]
    return {"questions": len(outcomes), "turn_questions": len(turns),
            "turn_recall_any": _share(turns, lambda o: o.turn_any, TURN_KS),
            "turn_recall_all": _share(turns, lambda o: o.turn_all, TURN_KS),
            "session_recall_any": _share(outcomes, lambda o: o.session_any, SESSION_KS)}


def report(outcomes: Sequence[Outcome], per: str = "per_category") -> Record:
    """Shares over all questions and per category (or question type)."""
    result = tally(outcomes)
    categories = sorted({o.category for o in outcomes})
    result[per] = {c: tally([o for o in outcomes if o.category == c]) for c in categories}
    return result


def objective(outcomes: Sequence[Outcome]) -> float:
    """What cross-validation maximises: turn recall_any@10 + session recall_any@5."""
    turn = TURN_KS.index(OBJECTIVE[0][1])
    session = SESSION_KS.index(OBJECTIVE[1][1])
    turns = [o.turn_any[turn] for o in outcomes if o.has_turns]
    sessions = [o.session_any[session] for o in outcomes]
    return (sum(turns) / len(turns) if turns else 0.0) + (sum(sessions) / len(sessions) if sessions else 0.0)


def choose(by_config: Mapping[str, Sequence[Outcome]], groups: set[str]) -> str:
    """The configuration with the best objective on ``groups``; the first listed wins ties."""
    best, best_score = "", -1.0
    for name, outcomes in by_config.items():
        score = objective([o for o in outcomes if o.group in groups])
        if score > best_score + 1e-12:
            best, best_score = name, score
    return best


def _spread(values: Sequence[float]) -> Record:
    return {"mean": round(statistics.fmean(values), 4) if values else 0.0,
            "sd": round(statistics.pstdev(values), 4) if len(values) > 1 else 0.0,
            "min": round(min(values), 4) if values else 0.0, "max": round(max(values), 4) if values else 0.0}


def _fold_stats(folds: Sequence[Sequence[Outcome]]) -> Record:
    """Per figure and k: the share pooled over every held-out question, and the mean,
    standard deviation, min and max of the per-fold shares."""
    pooled = tally([o for fold in folds for o in fold])
    per_fold = [tally(fold) for fold in folds if fold]
    stats: Record = {"questions": pooled["questions"], "turn_questions": pooled["turn_questions"]}
    for figure in ("turn_recall_any", "turn_recall_all", "session_recall_any"):
        stats[figure] = {k: {"pooled": pooled[figure][k], **_spread([f[figure][k] for f in per_fold])}
                         for k in pooled[figure]}
    return stats


def fold_report(folds: Sequence[Sequence[Outcome]], per: str) -> Record:
    result = _fold_stats(folds)
    categories = sorted({o.category for fold in folds for o in fold})
    result[per] = {c: _fold_stats([[o for o in fold if o.category == c] for fold in folds]) for c in categories}
    return result


def cross_validate(by_config: Mapping[str, Sequence[Outcome]], baselines: Mapping[str, Sequence[Outcome]],
                   per: str = "per_category") -> Record:
    """Leave-one-group-out: for each group, the configuration chosen on the others, scored
    on it. Baselines are fixed configurations (nothing chosen), reported by the same folds."""
    groups = list(dict.fromkeys(o.group for outcomes in by_config.values() for o in outcomes))
    chosen: dict[str, str] = {}
    held: list[list[Outcome]] = []
    for group in groups:
        name = choose(by_config, set(groups) - {group}) if len(groups) > 1 else choose(by_config, {group})
        chosen[group] = name
        held.append([o for o in by_config[name] if o.group == group])
    tuned = choose(by_config, set(groups))
    cv = fold_report(held, per)
    tuned_report = report(by_config[tuned], per)
    gap = {f"{figure}@{k}": round(tuned_report[figure][str(k)] - cv[figure][str(k)]["pooled"], 4)
           for figure, k in OBJECTIVE}
    return {
        "folds": [{"held_out": g, "chosen": chosen[g], "questions": len(f), **{
            figure: tally(f)[figure] for figure in ("turn_recall_any", "session_recall_any")}}
            for g, f in zip(groups, held, strict=True)],
        "cross_validated": cv,
        "tuned": {"chosen": tuned, **tuned_report},
        "gap_tuned_minus_cv": gap,
        "grid": {name: {"objective": round(objective(outcomes), 4), **tally(outcomes)}
                 for name, outcomes in by_config.items()},
        **{f"baseline_{name}": fold_report([[o for o in outcomes if o.group == g] for g in groups], per)
           for name, outcomes in baselines.items()},
    }
