"""The ledger's behaviour through ``Memory``, on every backend (conformance)."""

from __future__ import annotations

from typing import Any

import pytest

from sgam import ConflictError, Effect, Fact, Memory, NotFoundError, ValidationError

T = "acme"
D1, D2, D3, D4 = (f"2026-06-0{d}T00:00:00Z" for d in (1, 2, 3, 4))


def _clock(memory: Memory, moment: str) -> None:
    memory.clock.set(moment.replace("Z", "+00:00"))  # type: ignore[attr-defined]


def snapshot(memory: Memory, tenant: str = T) -> Any:
    """Everything a tenant can read, for "nothing changed" checks."""
    rows = memory.query(tenant, all_times=True, limit=10_000)
    keys = sorted({(a.subject, a.attribute) for a in rows})
    return (
        [memory.versions(tenant, s, a) for s, a in keys],
        memory.episodes(tenant, limit=10_000),
        memory.schema(tenant),
    )


@pytest.fixture
def mem(memory: Memory) -> Memory:
    _clock(memory, "2026-07-01T00:00:00Z")
    for episode in ("e1", "e2", "e3"):
        memory.add_episode(T, episode, D1, f"episode {episode}")
    return memory


def test_write_then_supersede(mem: Memory) -> None:
    first = mem.write(T, "mira", "deadline", "2026-07-15", D1, "e1")
    assert first.effect is Effect.CREATED
    _clock(mem, "2026-07-02T00:00:00Z")
    second = mem.write(T, "mira", "deadline", "2026-06-30", D2, "e2")
    assert second.effect is Effect.SUPERSEDED
    assert second.assertion is not None and second.assertion.supersedes == first.operation_id
    got = mem.get(T, "mira", "deadline")
    assert got is not None and got.value == "2026-06-30" and got.source == "e2"
    earlier = mem.get(T, "mira", "deadline", at=D1)
    assert earlier is not None and earlier.value == "2026-07-15" and earlier.closed_by == "e2"
    believed = mem.get(T, "mira", "deadline", known_at="2026-07-01T12:00:00Z")
    assert believed is not None and believed.value == "2026-07-15"
    assert [a.value for a in mem.history(T, "mira", "deadline")] == ["2026-07-15", "2026-06-30"]
    assert [a.value for a in mem.history(T, "mira", "deadline", known_at="2026-07-01T12:00:00Z")] == [
        "2026-07-15"]


def test_same_value_corroborates_and_other_value_conflicts(mem: Memory) -> None:
    mem.write(T, "mira", "city", {"name": "Oslo", "zip": 1}, D1, "e1")
    again = mem.write(T, "mira", "city", {"zip": 1.0, "name": "Oslo"}, D1, "e2")
    assert again.effect is Effect.CORROBORATED
    before = snapshot(mem)
    with pytest.raises(ConflictError):
        mem.write(T, "mira", "city", "Bergen", D1, "e2")
    assert snapshot(mem) == before


def test_write_in_gap_runs_to_next(mem: Memory) -> None:
    mem.write(T, "k", "a", 3, D3, "e1")
    created = mem.write(T, "k", "a", 1, D1, "e1")
    assert created.assertion is not None and created.assertion.valid_to is not None
    assert created.assertion.valid_to.isoformat().startswith("2026-06-03")


def test_retract_and_correct(mem: Memory) -> None:
    mem.write(T, "k", "a", "v1", D1, "e1")
    _clock(mem, "2026-07-02T00:00:00Z")
    assert mem.retract(T, "k", "a", D3, "e2").effect is Effect.RETRACTED
    assert mem.get(T, "k", "a") is None
    assert mem.get(T, "k", "a", at=D2) is not None
    with pytest.raises(NotFoundError):
        mem.retract(T, "k", "a", D4, "e2")
    _clock(mem, "2026-07-03T00:00:00Z")
    fixed = mem.correct(T, "k", "a", D1, "v1-fixed", "e3")
    assert fixed.effect is Effect.CORRECTED
    now = mem.get(T, "k", "a", at=D2)
    assert now is not None and now.value == "v1-fixed"
    assert now.valid_to is not None and now.valid_to.isoformat().startswith("2026-06-03")
    old = mem.get(T, "k", "a", at=D2, known_at="2026-07-02T12:00:00Z")
    assert old is not None and old.value == "v1"
    with pytest.raises(NotFoundError):
        mem.correct(T, "k", "a", D2, "x", "e3")
    assert len(mem.versions(T, "k", "a")) == 3


def test_forget_episode_reopens_neighbour(mem: Memory) -> None:
    mem.write(T, "mira", "deadline", "2026-07-15", D1, "e1")
    _clock(mem, "2026-07-02T00:00:00Z")
    mem.write(T, "mira", "deadline", "2026-06-30", D2, "e2")
    result = mem.forget_episode(T, "e2")
    assert (result.operations_removed, result.episodes_removed) == (1, 1)
    got = mem.get(T, "mira", "deadline", at=D3)
    assert got is not None and got.value == "2026-07-15" and got.valid_to is None
    history = mem.history(T, "mira", "deadline", known_at="2026-07-02T12:00:00Z")
    assert [a.value for a in history] == ["2026-07-15"]
    assert all(a.source != "e2" and a.closed_by != "e2" for a in mem.versions(T, "mira", "deadline"))
    assert mem.episode(T, "e2") is None
    with pytest.raises(NotFoundError):
        mem.forget_episode(T, "e2")


def test_corroboration_takes_effect_after_erasure(mem: Memory) -> None:
    mem.write(T, "k", "a", "same", D1, "e1")
    assert mem.write(T, "k", "a", "same", D1, "e2").effect is Effect.CORROBORATED
    mem.forget_episode(T, "e1")
    got = mem.get(T, "k", "a")
    assert got is not None and got.value == "same" and got.source == "e2"


def test_forget_subject(mem: Memory) -> None:
    mem.write(T, "mira", "a", 1, D1, "e1")
    mem.write(T, "mira", "b", 2, D1, "e1")
    mem.write(T, "noor", "a", 3, D1, "e1")
    assert mem.forget_subject(T, "mira").keys_rederived == 2
    assert mem.query(T, subject="mira", all_times=True) == []
    assert [a.subject for a in mem.query(T, all_times=True)] == ["noor"]
    assert mem.forget_subject(T, "nobody").operations_removed == 0


def test_batch_write_all_or_nothing(mem: Memory) -> None:
    facts: list[Fact | dict[str, Any]] = [
        Fact("k", "a", i, f"2026-06-0{i}T00:00:00Z", "e1") for i in range(1, 5)
    ]
    results = mem.write_many(T, facts)
    assert [r.effect for r in results] == [Effect.CREATED] + [Effect.SUPERSEDED] * 3
    assert [a.value for a in mem.history(T, "k", "a")] == [1, 2, 3, 4]
    before = snapshot(mem)
    with pytest.raises(ConflictError, match=r"facts\[1\]"):
        mem.write_many(T, [dict(subject="n", attribute="a", value=1, valid_from=D1, source="e1"),
                           dict(subject="k", attribute="a", value=9, valid_from=D1, source="e1")])
    with pytest.raises(NotFoundError):
        mem.write_many(T, [dict(subject="n", attribute="a", value=1, valid_from=D1, source="nope")])
    assert snapshot(mem) == before


def test_query_filters_and_paging(mem: Memory) -> None:
    for subject in ("a", "b", "c"):
        mem.write(T, subject, "colour", subject.upper(), D1, "e1", memory_type="preference")
        mem.write(T, subject, "size", 1, D1, "e1")
    assert len(mem.query(T)) == 6
    assert [a.subject for a in mem.query(T, attribute="colour")] == ["a", "b", "c"]
    assert {a.attribute for a in mem.query(T, memory_type="preference")} == {"colour"}
    assert mem.query(T, at="2026-05-01T00:00:00Z") == []
    page = mem.query(T, limit=4)
    rest = mem.query(T, limit=4, cursor=page.next_cursor)
    assert [(a.subject, a.attribute) for a in page + rest] == [
        (s, a) for s in "abc" for a in ("colour", "size")]
    assert mem.query(T, known_at="2026-06-01T00:00:00Z") == []


@pytest.mark.parametrize("backfill", [False, True])
def test_listing_by_attribute_finds_the_keys_steps_derive(mem: Memory, backfill: bool) -> None:
    """A rename, a one -> many change and an alias merge derive keys that have versions
    but no operation of their own: a listing by attribute finds them, under every name
    the attribute has, at every known_at (steps taken at once or by a backfill)."""
    mem.declare(T, "city", "string")
    mem.declare(T, "tag", "string")
    for subject in ("a", "b"):
        mem.write(T, subject, "city", "Oslo", D1, "e1")
        mem.write(T, subject, "tag", "x", D1, "e1")
    mem.write(T, "bea", "city", "Rome", D2, "e2")
    _clock(mem, "2026-07-02T00:00:00Z")
    mem.rename_attribute(T, "city", "home_city", backfill=backfill)
    mem.declare(T, "tag", "string", cardinality="many")
    _clock(mem, "2026-07-03T00:00:00Z")
    mem.alias(T, "bea", "b")  # b.home_city: Oslo, then Rome from bea's log

    def listed(attribute: str, known_at: str | None = None) -> list[tuple[str, str, Any]]:
        return [(a.subject, a.attribute, a.value) for a in mem.query(T, attribute=attribute, known_at=known_at)]

    merged = [("a", "home_city", "Oslo"), ("b", "home_city", "Rome")]
    assert listed("home_city") == listed("city") == merged
    renamed = [("a", "home_city", "Oslo"), ("b", "home_city", "Oslo"), ("bea", "home_city", "Rome")]
    assert listed("home_city", "2026-07-02T12:00:00Z") == renamed
    assert listed("city", "2026-07-01T12:00:00Z") == [
        ("a", "city", "Oslo"), ("b", "city", "Oslo"), ("bea", "city", "Rome")]
    assert listed("home_city", "2026-07-01T12:00:00Z") == []
    assert listed("tag") == listed("tag", "2026-07-01T12:00:00Z") == [("a", "tag", "x"), ("b", "tag", "x")]
    assert [(a.subject, a.value) for a in mem.query(T, attribute="home_city", all_times=True)] == [
        ("a", "Oslo"), ("b", "Oslo"), ("b", "Rome")]


def test_tenants_are_isolated(mem: Memory) -> None:
    mem.write(T, "k", "a", "secret", D1, "e1")
    assert mem.get("other", "k", "a") is None
    assert mem.query("other", all_times=True) == []
    with pytest.raises(NotFoundError):
        mem.write("other", "k", "a", "x", D1, "e1")


def test_errors_leave_state_unchanged(mem: Memory) -> None:
    mem.write(T, "k", "a", 1, D1, "e1")
    mem.declare(T, "age", "integer")
    before = snapshot(mem)
    with pytest.raises(ValidationError):
        mem.write(T, "k", "age", "old", D1, "e1")
    with pytest.raises(ValidationError):
        mem.write(T, "k", "a", None, D2, "e1")
    with pytest.raises(ValidationError):
        mem.write(T, "k", "a", 2, "2026-06-02T00:00:00", "e1")
    with pytest.raises(NotFoundError):
        mem.write(T, "k", "a", 2, D2, "missing")
    with pytest.raises(ConflictError):
        mem.add_episode(T, "e1", D2, "other text")
    assert snapshot(mem) == before


def test_episodes_round_trip(mem: Memory) -> None:
    stored = mem.add_episode(T, "s1", "2026-06-05T10:00:00.123456+02:00", "hi", speaker="mira",
                             session="chat", metadata={"b": 1, "a": [1, 2]})
    assert mem.add_episode(T, "s1", "2026-06-05T08:00:00.123456Z", "hi", speaker="mira",
                           session="chat", metadata={"a": [1, 2], "b": 1}) == stored
    assert stored.at.isoformat() == "2026-06-05T08:00:00.123456+00:00"
    assert [e.id for e in mem.episodes(T, session="chat")] == ["s1"]
    assert [e.id for e in mem.episodes(T)] == ["e1", "e2", "e3", "s1"]


@pytest.mark.parametrize("value", [1e20, 0.1, -0.0, 2**63, "ü", [1, {"z": None, "a": True}], False])
def test_values_round_trip_exactly(mem: Memory, value: Any) -> None:
    mem.write(T, "k", "v", value, D1, "e1")
    got = mem.get(T, "k", "v")
    assert got is not None and got.value == value
    assert type(got.value) is type(value) or isinstance(value, float)  # 1e20 may come back as int
    assert mem.write(T, "k", "v", value, D1, "e2").effect is Effect.CORROBORATED


def test_a_batch_into_a_long_history_reads_as_the_same_writes_one_by_one(memory: Memory) -> None:
    """A batch loads only the versions around the earliest instant it writes per key;
    what it decides must be what the writes would decide one at a time."""
    for tenant in ("single", "batch"):
        memory.add_episode(tenant, "e", "2025-01-01T00:00:00Z", "history")
        for month in range(1, 10):
            memory.write(tenant, "mira", "city", f"c{month}", f"2025-{month:02d}-01T00:00:00Z", "e")
    facts = [("2025-05-20T00:00:00Z", "w"), ("2025-07-01T00:00:00Z", "c7"), ("2025-04-15T00:00:00Z", "x"),
             ("2025-11-01T00:00:00Z", "z"), ("2025-05-01T00:00:00Z", "c5")]
    single = [memory.write("single", "mira", "city", value, at, "e").effect for at, value in facts]
    batch = memory.write_many("batch", [Fact("mira", "city", value, at, "e") for at, value in facts])
    assert [result.effect for result in batch] == single

    def timeline(tenant: str) -> list[tuple[Any, ...]]:
        return [(a.value, a.valid_from, a.valid_to, a.closed_by) for a in memory.history(tenant, "mira", "city")]

    assert timeline("batch") == timeline("single")
    assert len(timeline("batch")) == 12
