"""Recall finds a subject under any of its names: a question naming an alias gets the
subject's facts, answered under the subject's id."""

from __future__ import annotations

from sgam import Memory

from ..conftest import ManualClock

T1 = "2026-01-01T00:00:00Z"


def test_a_question_naming_an_alias_finds_the_subject(memory: Memory, clock: ManualClock) -> None:
    memory.add_episode("t", "e1", T1, "Mira Jansen lives in Oslo.")
    memory.write("t", "Mira Jansen", "city", "Oslo", T1, "e1")
    clock.advance(60)
    memory.alias("t", "MJ", "Mira Jansen")
    found = memory.recall("t", "Which city does MJ live in?")
    facts = [(item.subject, item.value) for item in found.items if item.kind == "fact"]
    assert ("mira jansen", "Oslo") in facts
