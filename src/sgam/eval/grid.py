"""The settings cross-validation chooses among, as data.

Each entry is a complete ``SearchConfig``. ``sgam eval ... --cv`` scores every question
under every entry, then for each held-out group picks the entry with the best
turn recall_any@10 + session recall_any@5 on the other groups. Entries are ordered
simplest first (ties go to the earlier one)."""

from __future__ import annotations

from ..search import PRESETS, SearchConfig


def _grid() -> dict[str, SearchConfig]:
    """The shipped default first, then its neighbours along the knobs that moved the
    figures in ablations (context, session coverage, time words, named dates, feedback),
    and plain RRF."""
    default = PRESETS["default"]
    grid: dict[str, SearchConfig] = {"default": default}
    for neighbour in (0.5, 0.7):
        for session_doc in (0.5, 1.0):
            for when in (0.0, 0.3):
                grid[f"n{neighbour}-s{session_doc}-w{when}"] = default.model_copy(
                    update={"neighbour_weight": neighbour, "session_doc_weight": session_doc, "when_weight": when})
    grid["no-dates"] = default.model_copy(update={"date_weight": 0.0})
    grid["feedback"] = default.model_copy(update={"feedback_terms": 8, "feedback_weight": 0.5})
    grid["no-context"] = default.model_copy(update={"neighbour_weight": 0.0, "session_doc_weight": 0.0})
    grid["hybrid"] = PRESETS["hybrid"]
    return grid


GRID: dict[str, SearchConfig] = _grid()
