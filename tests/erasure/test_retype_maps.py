"""A retype's ``map`` is kept in the schema history and may quote personal data: an
erasure (of a subject, of an episode) drops the pairs converting a value no operation
holds any more, so ``residue`` finds nothing; pairs still converting a kept value stay."""

from __future__ import annotations

import json

from sgam import Memory

from ..conftest import ManualClock

T1 = "2026-01-01T00:00:00Z"
SECRET = "Mira's secret budget"


def _maps(memory: Memory) -> list[list[list[object]]]:
    return [change.detail["map"] for change in memory.schema_history("t") if change.kind == "retype"]


def _retyped(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "budgets")
    memory.add_episode("t", "e2", T1, "more budgets")
    memory.declare("t", "budget", "string")
    memory.write("t", "mira", "budget", SECRET, T1, "e1")
    memory.write("t", "ola", "budget", "a thousand", T1, "e2")
    memory.write("t", "kim", "budget", "a thousand", T1, "e1")
    memory.retype("t", "budget", "integer", map=[[SECRET, 9000], ["a thousand", 1000]])
    assert memory.get("t", "mira", "budget").value == 9000  # type: ignore[union-attr]
    assert memory.residue("t", SECRET).found


def test_forgetting_a_subject_drops_the_map_pairs_of_its_values(memory: Memory, clock: ManualClock) -> None:
    _retyped(memory)
    memory.forget_subject("t", "mira")
    assert _maps(memory) == [[["a thousand", 1000]]]
    memory.purge_residue()
    assert not memory.residue("t", SECRET).found, memory.residue("t", SECRET).places
    assert memory.get("t", "ola", "budget").value == 1000  # type: ignore[union-attr]
    memory.forget_subject("t", "ola")  # kim still holds "a thousand": the pair stays
    assert _maps(memory) == [[["a thousand", 1000]]]
    assert memory.get("t", "kim", "budget").value == 1000  # type: ignore[union-attr]


def test_forgetting_an_episode_drops_the_map_pairs_of_its_values(memory: Memory, clock: ManualClock) -> None:
    _retyped(memory)
    memory.forget_episode("t", "e1")
    assert _maps(memory) == [[["a thousand", 1000]]]
    memory.purge_residue()
    assert not memory.residue("t", SECRET).found, memory.residue("t", SECRET).places
    memory.forget_episode("t", "e2")
    assert _maps(memory) == [[]]
    assert json.dumps(_maps(memory)).count("thousand") == 0


def test_forgetting_a_subject_reaches_values_a_retype_converted_to_it(memory: Memory, clock: ManualClock) -> None:
    """``"Bobby"`` recorded as text, then retyped to the subject ``bob`` by a map pair:
    erasing ``bob`` erases that write, the relation it made and the pair."""
    memory.add_episode("t", "e1", T1, "managers")
    memory.declare("t", "manager", "string")
    memory.write("t", "mira", "manager", "Bobby", T1, "e1")
    memory.write("t", "kim", "manager", "ola", T1, "e1")
    memory.retype("t", "manager", "subject", map=[["Bobby", "bob"]])
    assert memory.get("t", "mira", "manager").value == "bob"  # type: ignore[union-attr]
    memory.forget_subject("t", "bob")
    assert memory.get("t", "mira", "manager") is None
    assert memory.linked("t", "manager", "bob") == []
    assert memory.get("t", "kim", "manager").value == "ola"  # type: ignore[union-attr]
    assert _maps(memory) == [[]]
    memory.purge_residue()
    assert not memory.residue("t", "Bobby").found, memory.residue("t", "Bobby").places
