"""Schema evolution keeps its promise on every backend: a read with a ``known_at`` before
a step checks the schema as it stood then, every read that names an attribute follows
its renames, relation values compare by the subject they name, and a retype to
``subject`` stores the ids a write would."""

from __future__ import annotations

import pytest

from sgam import ConflictError, Effect, Memory, ValidationError

T = "acme"
D1, D2, D3 = "2026-01-05T00:00:00Z", "2026-01-08T00:00:00Z", "2026-01-20T00:00:00Z"
BEFORE = "2026-02-01T12:00:00Z"
"""A known_at between the writes (recorded 2026-02-01) and the steps (2026-02-02)."""


def _clock(memory: Memory, moment: str) -> None:
    memory.clock.set(moment.replace("Z", "+00:00"))  # type: ignore[attr-defined]


@pytest.fixture
def mem(memory: Memory) -> Memory:
    _clock(memory, "2026-02-01T00:00:00Z")
    for episode in ("e1", "e2", "e3"):
        memory.add_episode(T, episode, D1, f"episode {episode}")
    return memory


def _step(mem: Memory) -> None:
    _clock(mem, "2026-02-02T00:00:00Z")


def test_a_value_read_before_one_to_many_answers_the_one_value(mem: Memory) -> None:
    mem.declare(T, "budget", "integer")
    mem.write(T, "ann", "budget", 5, D1, "e1")
    mem.write(T, "ann", "budget", 7, D2, "e1")
    _step(mem)
    mem.declare(T, "budget", "integer", cardinality="many")
    believed = mem.get(T, "ann", "budget", known_at=BEFORE)
    assert believed is not None and believed.value == 7
    assert mem.get(T, "ann", "budget", at=D1, known_at=BEFORE) is not None
    assert mem.get(T, "ann", "budget", at="2026-01-01T00:00:00Z", known_at=BEFORE) is None
    looked = mem.lookup(T, "ann", "budget", known_at=BEFORE)
    assert not isinstance(looked, list) and looked is not None and looked.value == 7
    with pytest.raises(ValidationError, match="members"):
        mem.get(T, "ann", "budget")
    # many -> one: between the steps it was a set, and a read then answers in that shape
    _clock(mem, "2026-02-03T00:00:00Z")
    mem.declare(T, "budget", "integer", cardinality="one")
    between = "2026-02-02T12:00:00Z"
    with pytest.raises(ValidationError, match="members"):
        mem.get(T, "ann", "budget", known_at=between)
    members = mem.lookup(T, "ann", "budget", known_at=between)
    assert isinstance(members, list) and [m.value for m in members] == [7]
    now = mem.get(T, "ann", "budget")
    assert now is not None and now.value == 7


def test_linked_and_reachable_before_a_retype_away_from_subject_follow_the_relation(mem: Memory) -> None:
    mem.declare(T, "manager", "subject")
    mem.write(T, "ann", "manager", "Omar", D1, "e1")
    _step(mem)
    mem.retype(T, "manager", "string")
    assert mem.linked(T, "manager", "omar", known_at=BEFORE) == ["ann"]
    assert mem.reachable(T, "ann", ["manager"], known_at=BEFORE).subjects == ["omar"]
    with pytest.raises(ValidationError, match="type subject"):
        mem.linked(T, "manager", "omar")
    with pytest.raises(ValidationError, match="type subject"):
        mem.reachable(T, "ann", ["manager"])
    # consent for omar hides a value naming him where manager was a relation, only there
    mem.consent(T, "omar", False)
    assert mem.query(T, attribute="manager", known_at=BEFORE) == []
    assert [a.value for a in mem.query(T, attribute="manager")] == ["omar"]
    mem.consent(T, "omar", True)
    # and the other way: a retype to subject is a relation only from the step on
    mem.declare(T, "supplier", "string")
    mem.write(T, "ann", "supplier", "Cogs", D1, "e1")
    _clock(mem, "2026-02-03T00:00:00Z")
    mem.retype(T, "supplier", "subject")
    assert mem.linked(T, "supplier", "cogs") == ["ann"]
    with pytest.raises(ValidationError, match="type subject"):
        mem.linked(T, "supplier", "cogs", known_at="2026-02-02T12:00:00Z")


def test_every_read_by_an_old_name_answers_from_the_renamed_attribute(mem: Memory) -> None:
    mem.declare(T, "languages", "string", cardinality="many")
    mem.declare(T, "boss", "subject")
    for language in ("Dutch", "Greek"):
        mem.write(T, "ann", "languages", language, D1, "e1")
    mem.write(T, "ann", "boss", "omar", D1, "e1")
    _step(mem)
    mem.rename_attribute(T, "languages", "languages_v3")
    mem.rename_attribute(T, "boss", "manager")
    for name in ("languages", "languages_v3"):
        assert [m.value for m in mem.members(T, "ann", name)] == ["Dutch", "Greek"]
        assert [a.value for a in mem.query(T, attribute=name)] == ["Dutch", "Greek"]
    assert [m.value for m in mem.members(T, "ann", "languages", known_at=BEFORE)] == ["Dutch", "Greek"]
    assert mem.members(T, "ann", "languages_v3", known_at=BEFORE) == []
    assert [a.attribute for a in mem.query(T, attribute="languages", known_at=BEFORE)] == ["languages"] * 2
    assert mem.linked(T, "boss", "omar") == mem.linked(T, "manager", "omar") == ["ann"]
    assert mem.reachable(T, "ann", ["boss"]).subjects == ["omar"]
    assert mem.linked(T, "boss", "omar", known_at=BEFORE) == ["ann"]
    with pytest.raises(ValidationError, match="type subject"):
        mem.linked(T, "manager", "omar", known_at=BEFORE)  # no such name then


def test_relation_values_compare_by_the_subject_they_name(mem: Memory) -> None:
    mem.declare(T, "manager", "subject")
    mem.write(T, "ann", "manager", "omar", D1, "e1")
    mem.alias(T, "Ännä", "omar")
    assert mem.write(T, "ann", "manager", "Ännä", D1, "e2").effect is Effect.CORROBORATED
    assert mem.write(T, "ann", "manager", "ÄNNÄ", D3, "e2").effect is Effect.CORROBORATED
    with pytest.raises(ConflictError):
        mem.write(T, "ann", "manager", "lea", D1, "e2")
    batch = mem.write_many(T, [dict(subject="ann", attribute="manager", value="ännä", valid_from=D2, source="e3"),
                               dict(subject="ann", attribute="manager", value="Omar", valid_from=D3, source="e3")])
    assert [r.effect for r in batch] == [Effect.CORROBORATED, Effect.CORROBORATED]
    assert [(a.value, a.source) for a in mem.history(T, "ann", "manager")] == [("omar", "e1")]
    # derived again (an erasure): the corroborating writes take effect alone, as one value
    mem.forget_episode(T, "e1")
    assert [(a.value, a.source) for a in mem.history(T, "ann", "manager")] == [("omar", "e2")]
    # a merge: bob's Ännä and ann's omar at one valid_from are one value, not a conflict
    mem.write(T, "bob", "manager", "Ännä", D1, "e3")
    mem.alias(T, "bob", "ann")
    assert [a.value for a in mem.history(T, "bob", "manager")] == ["omar"]


def test_a_retype_to_subject_normalises_ids_as_a_write_does(mem: Memory) -> None:
    mem.declare(T, "supplier", "string")
    mem.write(T, "acme", "supplier", "Cogs", D1, "e1")
    mem.write(T, "brick", "supplier", " COGS ", D1, "e1")
    mem.write(T, "crate", "supplier", "Bolts", D1, "e1")
    _step(mem)
    mem.retype(T, "supplier", "subject", map=[["Bolts", " BOLTS  Inc "]])
    assert [(a.subject, a.value) for a in mem.query(T, attribute="supplier")] == [
        ("acme", "cogs"), ("brick", "cogs"), ("crate", "bolts inc")]
    assert mem.linked(T, "supplier", "Cogs") == ["acme", "brick"]
    before = mem.get(T, "brick", "supplier", known_at=BEFORE)
    assert before is not None and before.value == " COGS "
    mem.consent(T, "cogs", False)
    assert mem.get(T, "acme", "supplier") is None and mem.linked(T, "supplier", "cogs") == []
    mem.consent(T, "cogs", True)
    mem.forget_subject(T, "cogs")
    assert mem.get(T, "acme", "supplier") is None and mem.get(T, "brick", "supplier") is None
    assert mem.history(T, "brick", "supplier", known_at=BEFORE) == []
    kept = mem.get(T, "crate", "supplier")
    assert kept is not None and kept.value == "bolts inc"


def test_a_declaration_over_stored_values_of_another_type_counts_them_and_names_retype(mem: Memory) -> None:
    mem.write(T, "ann", "level", "5", D1, "e1")
    mem.write(T, "bob", "level", "high", D1, "e1")
    mem.write(T, "cid", "level", 3, D1, "e1")
    declared = mem.declare(T, "level", "integer")
    assert declared.not_of_type == 2 and declared.note is not None and "retype" in declared.note
    got = mem.get(T, "ann", "level")
    assert got is not None and got.value == "5"  # a declaration converts nothing
    again = mem.declare(T, "level", "integer", description="the same type again")
    assert again.not_of_type == 0 and again.note is None
    assert mem.declare(T, "fresh", "integer").not_of_type == 0
    assert [s.not_of_type for s in mem.schema(T)[0]] == [0, 0]
