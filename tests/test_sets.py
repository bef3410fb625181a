"""Sets (cardinality many) through the library on both backends: members, history,
bad input that changes nothing, and a cardinality change refused once data exists."""

from __future__ import annotations

import asyncio

import pytest

from sgam import AsyncMemory, ConflictError, Memory, ValidationError

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


def test_a_member_written_before_its_next_assertion_ends_where_that_one_starts(memory: Memory) -> None:
    """The member's version from T1 is followed by its version from T3: read between
    them it ends at T3, at every known_at after both; from T3 on the follower holds."""
    memory.add_episode("t", "e1", T1, "Kari joins team 7 on the 5th.")
    memory.add_episode("t", "e2", T1, "Kari was in team 7 from the 1st already.")
    memory.declare("t", "members", "string", cardinality="many")
    memory.write("t", "team7", "members", "kari", T3, "e1")
    memory.write("t", "team7", "members", "mira", T1, "e1")
    written = memory.write("t", "team7", "members", "kari", T1, "e2")
    known = written.assertion.recorded_at if written.assertion is not None else None
    for known_at in (None, known):
        early = memory.members("t", "team7", "members", at=T2, known_at=known_at)
        assert [(m.value, m.source) for m in early] == [("kari", "e2"), ("mira", "e1")]
        assert early[0].valid_to is not None and early[0].valid_to.isoformat().startswith("2026-06-05")
        late = memory.members("t", "team7", "members", at=T3, known_at=known_at)
        assert [(m.value, m.source, m.valid_to) for m in late] == [("kari", "e1", None), ("mira", "e1", None)]


def test_get_of_a_set_names_members_and_lookup_answers_its_members(memory: Memory) -> None:
    _team(memory)
    with pytest.raises(ValidationError, match=r"members\(\)") as raised:
        memory.get("t", "team7", "members")
    assert raised.value.field == "attribute"
    assert [m.value for m in memory.lookup("t", "Team7", "members", at=T1)] == ["mira", "ola"]  # type: ignore[union-attr]
    assert memory.lookup("t", "nobody", "members") == []
    memory.write("t", "team7", "city", "oslo", T1, "e1")
    one = memory.lookup("t", "team7", "city")
    assert not isinstance(one, list) and one is not None and one.value == "oslo"
    assert memory.get("t", "team7", "city") == one and memory.lookup("t", "team7", "pet") is None
    memory.consent("t", "team7", False)
    assert memory.lookup("t", "team7", "members") == []


def test_query_by_a_set_attribute_lists_its_members(memory: Memory) -> None:
    _team(memory)
    memory.write("t", "team8", "members", "per", T1, "e1", purpose="hr")
    memory.write("t", "team7", "city", "oslo", T1, "e1")
    found = memory.query("t", attribute="members")
    assert [(a.subject, a.attribute, a.value) for a in found] == [
        ("team7", "members", "kari"), ("team7", "members", "mira"), ("team7", "members", "ola")]
    assert [a.value for a in memory.query("t", attribute="members", at=T1)] == ["mira", "ola"]
    first = memory.query("t", attribute="members", limit=2)
    assert [a.value for a in first] == ["kari", "mira"] and first.next_cursor is not None
    assert [a.value for a in memory.query("t", attribute="members", limit=2, cursor=first.next_cursor)] == ["ola"]
    assert [a.value for a in memory.query("t", subject="team7", attribute="members", at=T1)] == ["mira", "ola"]
    scoped = memory.query("t", attribute="members", purpose="hr")
    assert [(a.subject, a.value, a.purpose) for a in scoped][-1] == ("team8", "per", "hr")
    assert ("team8", "per", "hr") in [(a.subject, a.value, a.purpose) for a in memory.query("t", purpose="hr")]
    assert "per" not in [a.value for a in memory.query("t")]
    assert [a.value for a in memory.query("t", attribute="city")] == ["oslo"]


def test_the_awaitable_lookup_answers_as_the_library_does(memory: Memory) -> None:
    _team(memory)

    async def both() -> tuple[object, object]:
        wrapped = AsyncMemory(memory)
        try:
            return await wrapped.lookup("t", "team7", "members", at=T1), await wrapped.lookup("t", "team7", "pet")
        finally:
            await wrapped.aclose()

    members, nothing = asyncio.run(both())
    assert members == memory.members("t", "team7", "members", at=T1) and nothing is None
