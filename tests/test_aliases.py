"""Aliases: merges derived from both logs, splits that give a name its operations back,
reads at earlier ``known_at`` that see the subjects as they stood, a page of names, and
erasure that stays "as if never recorded" across a merge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import ConflictError, Memory, NotFoundError, ValidationError

from .conftest import ManualClock

T1, T2, T3, T4 = ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z")


def _story(memory: Memory, clock: ManualClock) -> None:
    memory.add_episode("t", "e1", T1, "Mira lives in Oslo")
    memory.add_episode("t", "e2", T2, "MJ moved to Bergen")
    memory.write("t", "Mira", "city", "Oslo", T1, "e1")
    memory.write("t", "MJ", "city", "Bergen", T3, "e2")
    clock.advance(60)


def test_the_page_of_names_says_since_when_and_by_whose_decision(memory: Memory, clock: ManualClock) -> None:
    _story(memory, clock)
    before = clock.now
    clock.advance(60)
    joined = memory.alias("t", " MJ ", "mira", decided_by="ops@acme")
    assert (joined.name, joined.subject, joined.until, joined.decided_by) == ("mj", "mira", None, "ops@acme")
    clock.advance(60)
    memory.alias("t", "Jansen", "mj")
    assert memory.resolve("t", "JANSEN") == "mira"
    assert (memory.resolve("t", "mj", known_at=before), memory.resolve("t", "mj")) == ("mj", "mira")
    clock.advance(60)
    ended = memory.unalias("t", "mj")
    assert ended.until is not None and ended.until > ended.since
    page = memory.names("t", "mira")
    assert [(n.name, n.subject, n.until is None, n.decided_by) for n in page] == [
        ("mj", "mira", False, "ops@acme"), ("jansen", "mj", True, None)]
    assert memory.resolve("t", "jansen") == "mj"  # the chain now ends at mj, its own subject again
    assert memory.display_names("t", ["jansen"]) == {"jansen": "Jansen"}


def test_a_merge_reads_both_logs_and_earlier_known_at_sees_them_apart(memory: Memory, clock: ManualClock) -> None:
    _story(memory, clock)
    before = clock.now
    clock.advance(60)
    memory.alias("t", "mj", "mira")
    assert [a.value for a in memory.history("t", "mira", "city")] == ["Oslo", "Bergen"]
    assert [a.value for a in memory.history("t", "mira", "city", known_at=before)] == ["Oslo"]
    assert [a.value for a in memory.history("t", "mj", "city", known_at=before)] == ["Bergen"]
    assert {a.subject for a in memory.query("t", subject="mj")} == {"mira"}
    results = memory.write_many("t", [{"subject": "MJ", "attribute": "pet", "value": "cat", "valid_from": T2,
                                       "source": "e2"}])
    assert results[0].assertion is not None and results[0].assertion.subject == "mira"


def test_an_impossible_merge_changes_nothing(memory: Memory, clock: ManualClock) -> None:
    memory.add_episode("t", "e1", T1, "x")
    memory.write("t", "kim", "city", "Oslo", T1, "e1")
    memory.write("t", "lee", "city", "Rome", T1, "e1")
    with pytest.raises(ConflictError) as caught:
        memory.alias("t", "lee", "kim")
    assert caught.value.field == "name"
    assert memory.names("t", "kim") == []
    assert memory.resolve("t", "lee") == "lee"
    assert memory.get("t", "lee", "city").value == "Rome"  # type: ignore[union-attr]
    with pytest.raises(ValidationError):
        memory.alias("t", "", "kim")
    with pytest.raises(ConflictError):
        memory.alias("t", "kim", "KIM")
    with pytest.raises(NotFoundError):
        memory.unalias("t", "lee")


def test_erasing_an_episode_after_a_merge_reaches_the_history_before_it(memory: Memory, clock: ManualClock) -> None:
    _story(memory, clock)
    before = clock.now
    clock.advance(60)
    memory.alias("t", "mj", "mira")
    memory.forget_episode("t", "e2")
    assert [a.value for a in memory.history("t", "mira", "city")] == ["Oslo"]
    assert memory.history("t", "mj", "city", known_at=before) == []
    every = [a.value for s in ("mira", "mj") for a in memory.versions("t", s, "city")]
    assert "Bergen" not in every


def test_forgetting_a_subject_reaches_every_name_and_frees_a_split_one(memory: Memory, clock: ManualClock) -> None:
    _story(memory, clock)
    memory.add_episode("t", "e3", T4, "Jansen likes tea")
    memory.write("t", "jansen", "drink", "tea", T4, "e3")
    clock.advance(60)
    memory.alias("t", "mj", "mira")
    memory.alias("t", "jansen", "mira")
    clock.advance(60)
    memory.unalias("t", "jansen")
    memory.forget_subject("t", "MJ")
    assert memory.get("t", "mira", "city") is None
    assert memory.history("t", "mj", "city") == []
    assert memory.names("t", "mira") == []
    assert memory.get("t", "jansen", "drink").value == "tea"  # type: ignore[union-attr]
    # jansen's history no longer shows it ever joined the erased subject
    assert [a.subject for a in memory.versions("t", "jansen", "drink")] == ["jansen"]


OPS = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["write", "retract"]), st.integers(1, 6),
              st.sampled_from(["x", "y", "z"])),
    min_size=1, max_size=12,
)


def _apply(memory: Memory, subject: str, kind: str, day: int, value: str) -> bool:
    """Whether the operation was accepted (and so recorded)."""
    moment = f"2026-01-{day:02d}T00:00:00Z"
    try:
        if kind == "write":
            memory.write("t", subject, "k", value, moment, "e")
        else:
            memory.retract("t", subject, "k", f"2026-01-{day:02d}T12:00:00Z", "e")
    except (ConflictError, NotFoundError):
        return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_a_merge_derives_the_key_as_one_subject_would_have(tmp_path: Path, ops: list[Any]) -> None:
    """Property: after ``alias b -> a`` the key reads as if every recorded operation, in
    the order recorded, had named ``a`` (refused ones were never recorded)."""
    clock = ManualClock()
    path = tmp_path / f"p{abs(hash(tuple(ops)))}.db"
    path.unlink(missing_ok=True)
    with Memory(f"sqlite:///{path}", clock=clock) as merged, \
            Memory(f"sqlite:///{path}.one", clock=clock) as one:
        for memory in (merged, one):
            memory.add_episode("t", "e", T1, "x")
        for subject, kind, day, value in ops:
            clock.advance(1)
            if _apply(merged, subject, kind, day, value):
                _apply(one, "a", kind, day, value)
        clock.advance(1)
        try:
            merged.alias("t", "b", "a")
        except ConflictError:
            return  # one subject would have refused a write the two accepted
        expected = [(x.value, x.valid_from, x.valid_to) for x in one.history("t", "a", "k")]
        assert [(x.value, x.valid_from, x.valid_to) for x in merged.history("t", "b", "k")] == expected
    Path(f"{path}.one").unlink(missing_ok=True)
