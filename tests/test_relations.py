"""Relations through the library on both backends: linked and reachable, the fan-out
limit that says when it cut, bad input that names its field, and the index that serves
``linked`` (SQLite's plan)."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from sgam import AsyncMemory, DeniedError, Memory, ValidationError
from sgam.ledger import relations
from sgam.store._sql.ledger import LedgerReader

T1 = "2026-01-01T00:00:00Z"


def _graph(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "a supply chain")
    memory.declare("t", "supplier", "subject", cardinality="many")
    memory.declare("t", "owner", "subject")
    for buyer, seller in (("acme", "cogs"), ("acme", "bolts"), ("bolts", "cogs"), ("cogs", "nuts"), ("zed", "acme")):
        memory.write("t", buyer, "supplier", seller.upper(), T1, "e1")
    memory.write("t", "nuts", "owner", "Mira Jansen", T1, "e1")


def test_linked_and_reachable(memory: Memory) -> None:
    _graph(memory)
    assert memory.linked("t", "supplier", "Cogs") == ["acme", "bolts"]
    assert memory.linked("t", "owner", "mira  jansen") == ["nuts"]
    assert memory.get("t", "nuts", "owner").value == "mira jansen"  # type: ignore[union-attr]
    found = memory.reachable("t", "zed", ["supplier", "owner"], depth=4)
    assert sorted(found.subjects) == ["acme", "bolts", "cogs", "mira jansen", "nuts"] and not found.cut
    cut = memory.reachable("t", "zed", ["supplier"], depth=4, fan_out=2)
    assert len(cut.subjects) == 2 and cut.cut
    assert asyncio.run(_linked_async(memory)) == ["acme", "bolts"]


async def _linked_async(memory: Memory) -> list[str]:
    twin = AsyncMemory(memory)
    try:
        return await twin.linked("t", "supplier", "cogs")
    finally:
        await twin.aclose()


@pytest.mark.parametrize(("call", "field"), [
    (lambda m: m.reachable("t", "zed", ["supplier"], depth=0), "depth"),
    (lambda m: m.reachable("t", "zed", ["supplier"], depth=11), "depth"),
    (lambda m: m.reachable("t", "zed", ["supplier"], fan_out=10_001), "fan_out"),
    (lambda m: m.reachable("t", "zed", [], depth=1), "attributes"),
    (lambda m: m.reachable("t", "zed", ["supplier", "city"]), "attributes[1]"),
    (lambda m: m.reachable("t", "zed", [f"rel{i}" for i in range(33)]), "attributes"),
    (lambda m: m.linked("t", "city", "oslo"), "attribute"),
    (lambda m: m.write("t", "acme", "owner", "", T1, "e1"), "value"),
    (lambda m: m.write("t", "acme", "owner", ["x"], T1, "e1"), "value"),
])
def test_bad_input_names_the_field(memory: Memory, call: object, field: str) -> None:
    _graph(memory)
    memory.declare("t", "city", "string")
    with pytest.raises(ValidationError) as caught:
        call(memory)  # type: ignore[operator]
    assert caught.value.field == field
    assert memory.get("t", "acme", "owner") is None


def test_linked_reads_an_index_on_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with Memory(f"sqlite:///{path}") as memory:
        _graph(memory)
    sqls: list[str] = []

    class Recording:
        bytewise = ""
        true = "1"

        @staticmethod
        def moment(value: int) -> int:
            return value

        def rows(self, sql: str, params: object = ()) -> list[object]:
            sqls.append(sql)
            return []

    reader = LedgerReader(Recording(), "t")  # type: ignore[arg-type]
    reader.holders('supplier\x1e"cogs"', '"cogs"', 1, None, 10)
    with closing(sqlite3.connect(path)) as conn:
        plan = conn.execute(f"EXPLAIN QUERY PLAN {sqls[0]}", ("t", 'supplier\x1e"cogs"', '"cogs"', 1, 1, "t", 1, 10))
        details = " ".join(str(row[3]) for row in plan)
    assert "assertions_by_value" in details and "SCAN a " not in f"{details} " and "SCAN n " not in f"{details} "


def test_recall_does_not_say_a_relation_naming_a_revoked_subject(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "Mira's manager is Ola.")
    memory.declare("t", "manager", "subject")
    memory.write("t", "Mira", "manager", "Ola", T1, "e1")
    shown = [item for item in memory.recall("t", "who is the manager of mira").items if item.kind == "fact"]
    assert [(item.subject, item.value, item.subject_name) for item in shown] == [("mira", "ola", "Mira")]
    memory.consent("t", "ola", False)
    assert not [item for item in memory.recall("t", "who is the manager of mira").items if item.kind == "fact"]
    assert memory.get("t", "mira", "manager") is None
    assert memory.query("t", subject="mira") == []


def test_reachable_reads_a_whole_step_in_one_statement_per_relation(
    memory: Memory, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each step asks once per relation for the whole frontier (one round trip on
    PostgreSQL), not once per subject it reached."""
    memory.add_episode("t", "e1", T1, "a star of suppliers")
    memory.declare("t", "supplier", "subject", cardinality="many")
    memory.declare("t", "owner", "subject")
    for i in range(6):
        memory.write("t", "hub", "supplier", f"s{i}", T1, "e1")
        memory.write("t", f"s{i}", "owner", f"o{i}", T1, "e1")
        memory.write("t", f"s{i}", "supplier", f"t{i}", T1, "e1")
    asked: list[tuple[int, str]] = []
    holding = LedgerReader.holding

    def counted(self: LedgerReader, subjects: list[str], attribute: str, *args: object, **kwargs: object) -> object:
        asked.append((len(subjects), attribute.partition("\x1e")[0]))
        return holding(self, subjects, attribute, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LedgerReader, "holding", counted)
    found = memory.reachable("t", "hub", ["supplier", "owner"], depth=2)
    assert sorted(found.subjects) == sorted([f"{p}{i}" for p in "sot" for i in range(6)]) and not found.cut
    assert asked == [(1, "supplier"), (1, "owner"), (6, "supplier"), (6, "owner")]


def _counting_steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The relation each step of a walk reads, one entry per statement."""
    asked: list[str] = []
    holding = LedgerReader.holding

    def counted(self: LedgerReader, subjects: list[str], attribute: str, *args: object, **kwargs: object) -> object:
        asked.append(attribute.partition("\x1e")[0])
        return holding(self, subjects, attribute, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LedgerReader, "holding", counted)
    return asked


def test_a_relation_named_many_times_is_followed_once(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _graph(memory)
    asked = _counting_steps(monkeypatch)
    found = memory.reachable("t", "zed", ["supplier"] * 4000 + ["owner"] * 10, depth=4)
    assert sorted(found.subjects) == ["acme", "bolts", "cogs", "mira jansen", "nuts"] and not found.cut
    assert len(asked) <= 2 * 4  # each relation once per step, however often it was named


def test_a_walk_stops_with_cut_once_its_reads_are_spent(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound on one walk's work holds whatever the graph: a walk that would read more
    than the bound allows stops, says ``cut``, and has read no more than that."""
    _graph(memory)
    monkeypatch.setattr(relations, "MAX_WALK_READS", 3)
    asked = _counting_steps(monkeypatch)
    found = memory.reachable("t", "zed", ["supplier", "owner"], depth=4)
    assert found.cut and set(found.subjects) <= {"acme", "bolts", "cogs", "mira jansen", "nuts"}
    assert 0 < len(asked) <= 3


def test_a_correction_naming_a_revoked_subject_is_denied_as_a_write_is(memory: Memory) -> None:
    """A correction writes a value: one naming a subject whose consent is revoked is
    refused like a write of it, and the key stays as it was."""
    memory.add_episode("t", "e1", T1, "Mira's manager is Ola.")
    memory.declare("t", "manager", "subject")
    memory.write("t", "mira", "manager", "Ola", T1, "e1")
    memory.consent("t", "bob", False)
    with pytest.raises(DeniedError) as caught:
        memory.write("t", "mira", "manager", "Bob", "2026-02-01T00:00:00Z", "e1")
    assert (caught.value.field, caught.value.value) == ("value", "bob")
    with pytest.raises(DeniedError) as caught:
        memory.correct("t", "mira", "manager", T1, "Bob", "e1")
    assert (caught.value.field, caught.value.value) == ("value", "bob")
    assert [a.value for a in memory.versions("t", "mira", "manager")] == ["ola"]
    with pytest.raises(DeniedError):
        asyncio.run(_correct_async(memory))
    assert [a.value for a in memory.versions("t", "mira", "manager")] == ["ola"]


async def _correct_async(memory: Memory) -> None:
    twin = AsyncMemory(memory)
    try:
        await twin.correct("t", "mira", "manager", T1, "BOB", "e1")
    finally:
        await twin.aclose()
