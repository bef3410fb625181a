"""Sets (cardinality many) through the library on both backends: members, history,
bad input that changes nothing, and a cardinality change refused once data exists."""

from __future__ import annotations

import pytest

from sgam import ConflictError, Memory, ValidationError

from .conftest import ManualClock

T1, T2, T3 = "2026-06-01T00:00:00Z", "2026-06-03T00:00:00Z", "2026-06-05T00:00:00Z"


def _team(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "Team 7 has Mira and Ola; Kari joined later.")
    schema = memory.declare("t", "members", "string", cardinality="many")
    assert schema.cardinality == "many"
    for who, start in (("mira", T1), ("ola", T1), ("kari", T2)):
        memory.write("t", "team7", "members", who, start, "e1")


def test_members_hold_each_on_its_own_timeline(memory: Memory) -> None:
    _team(memory)
    assert [m.value for m in memory.members("t", "Team7", "members")] == ["kari", "mira", "ola"]
    assert all(m.attribute == "members" and m.subject == "team7" for m in memory.members("t", "team7", "members"))
    memory.retract("t", "team7", "members", T3, "e1", value="ola")
    assert [m.value for m in memory.members("t", "team7", "members")] == ["kari", "mira"]
    assert [m.value for m in memory.members("t", "team7", "members", at=T2)] == ["kari", "mira", "ola"]
    ola = [a for a in memory.history("t", "team7", "members") if a.value == "ola"]
    assert len(ola) == 1 and ola[0].valid_to is not None
    assert [a.value for a in memory.history("t", "team7", "members")] == ["mira", "ola", "kari"]
    assert memory.get("t", "team7", "members") is None  # a set is read with members()


def test_versions_of_a_set_are_every_version_of_every_member(memory: Memory, clock: ManualClock) -> None:
    _team(memory)
    assert memory.versions("t", "team7", "members") != []
    clock.advance(60)
    memory.retract("t", "team7", "members", T3, "e1", value="ola")
    versions = memory.versions("t", "Team7", "members")
    assert sorted(v.value for v in versions) == ["kari", "mira", "ola", "ola"]  # ola's retired version and its end
    ola = sorted((v for v in versions if v.value == "ola"), key=lambda v: v.recorded_at)
    assert ola[0].superseded_at is not None and ola[1].superseded_at is None and ola[1].valid_to is not None
    assert all(v.attribute == "members" for v in versions)


@pytest.mark.parametrize(("call", "field"), [
    (lambda m: m.retract("t", "team7", "members", T3, "e1"), "value"),
    (lambda m: m.correct("t", "team7", "members", T1, "per", "e1"), "attribute"),
    (lambda m: m.write("t", "team7", "members", "x" * 2000, T3, "e1"), "value"),
    (lambda m: m.write("t", "team7", "members", 7, T3, "e1"), "value"),
])
def test_bad_input_of_a_set_names_the_field_and_changes_nothing(memory: Memory, call: object, field: str) -> None:
    _team(memory)
    before = memory.history("t", "team7", "members")
    with pytest.raises(ValidationError) as caught:
        call(memory)  # type: ignore[operator]
    assert caught.value.field == field
    assert memory.history("t", "team7", "members") == before


def test_a_retract_of_a_one_valued_attribute_names_no_member(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "Mira lives in Oslo.")
    memory.write("t", "mira", "city", "Oslo", T1, "e1")
    with pytest.raises(ValidationError) as caught:
        memory.retract("t", "mira", "city", T3, "e1", value="Oslo")
    assert caught.value.field == "value"


def test_cardinality_is_kept_and_its_change_refused_once_data_exists(memory: Memory) -> None:
    _team(memory)
    assert memory.declare("t", "members", "string").cardinality == "many"
    with pytest.raises(ConflictError) as caught:
        memory.declare("t", "members", "string", cardinality="one")
    assert caught.value.field == "cardinality"
    with pytest.raises(ValidationError):
        memory.declare("t", "members", "string", cardinality="several")
    assert memory.declare("t", "tags", "string", cardinality="many").cardinality == "many"
    assert memory.declare("t", "tags", "string", cardinality="one").cardinality == "one"  # no data yet
