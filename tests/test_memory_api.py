"""The library API beyond what replay scenarios can say: batches, queries, versions,
typed memory types, limits, names, tenants, error messages and physical erasure."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from sgam import (
    ConflictError,
    Effect,
    Fact,
    Memory,
    NotFoundError,
    SgamError,
    ValidationError,
)
from tests.conftest import ManualClock

T1 = "2026-06-01T00:00:00Z"
UTC_MINUS_5 = timezone(timedelta(hours=-5))
T2 = "2026-06-10T00:00:00Z"
T3 = "2026-06-20T00:00:00Z"


def seed(memory: Memory, tenant: str = "acme", episode: str = "e1") -> None:
    memory.add_episode(tenant, episode, T1, f"episode {episode}")


# write_many -------------------------------------------------------------------------


def test_write_many_commits_all_in_order(memory: Memory) -> None:
    seed(memory)
    results = memory.write_many("acme", [
        Fact("mira", "city", "Paris", T1, "e1"),
        {"subject": "mira", "attribute": "city", "value": "Rome", "valid_from": T2, "source": "e1"},
        Fact("mira", "city", "Rome", T3, "e1"),
        Fact("omar", "city", "Cairo", T1, "e1"),
    ])
    assert [r.effect for r in results] == [Effect.CREATED, Effect.SUPERSEDED, Effect.CORROBORATED, Effect.CREATED]
    assert [r.operation_id for r in results] == sorted(r.operation_id for r in results)
    assert [a.value for a in memory.history("acme", "mira", "city")] == ["Paris", "Rome"]
    assert memory.write_many("acme", []) == []


def test_write_many_conflict_at_facts_3_writes_nothing(memory: Memory, clock: ManualClock) -> None:
    seed(memory)
    memory.write("acme", "mira", "city", "Paris", T1, "e1")
    before = memory.versions("acme", "mira", "city")
    clock.advance()
    facts = [
        Fact("omar", "city", "Cairo", T1, "e1"),
        Fact("mira", "city", "Rome", T2, "e1"),
        Fact("mira", "diet", "vegan", T1, "e1"),
        Fact("mira", "city", "Oslo", T1, "e1"),
        Fact("lena", "city", "Bonn", T1, "e1"),
    ]
    with pytest.raises(ConflictError, match=r"^facts\[3\]: ") as caught:
        memory.write_many("acme", facts)
    assert caught.value.kind == "conflict"
    assert memory.versions("acme", "mira", "city") == before
    for subject, attribute in (("omar", "city"), ("mira", "diet"), ("lena", "city")):
        assert memory.history("acme", subject, attribute) == []
    assert memory.query("acme", all_times=True) == memory.query("acme", all_times=True, subject="mira")
    # the refused batch left no operation behind: erasing e1 removes exactly one
    assert memory.forget_episode("acme", "e1").operations_removed == 1


@pytest.mark.parametrize(("bad", "error", "field"), [
    ({"valid_from": "2026-06-01T00:00:00"}, ValidationError, "facts[2].valid_from"),
    ({"value": None}, ValidationError, "facts[2].value"),
    ({"colour": "red"}, ValidationError, "facts[2].colour"),
    ({"subject": ""}, ValidationError, "facts[2].subject"),
    ({"source": "e9"}, NotFoundError, "facts[2].source"),
])
def test_write_many_names_the_offending_fact(memory: Memory, bad: dict[str, Any], error: type[SgamError],
                                            field: str) -> None:
    seed(memory)
    good = {"subject": "mira", "attribute": "city", "value": "Paris", "valid_from": T1, "source": "e1"}
    facts = [dict(good, subject=f"s{i}") for i in range(4)]
    facts[2] = {**facts[2], **bad}
    with pytest.raises(error) as caught:
        memory.write_many("acme", facts)
    assert caught.value.field == field
    assert field in caught.value.message
    assert memory.query("acme", all_times=True) == []


def test_write_many_checks_validation_then_not_found_then_conflict(memory: Memory) -> None:
    """The order a single operation follows holds across the whole batch."""
    seed(memory)
    memory.declare("acme", "age", "integer")
    memory.write("acme", "mira", "age", 40, T1, "e1")
    conflict = {"subject": "mira", "attribute": "age", "value": 41, "valid_from": T1, "source": "e1"}
    unknown = {"subject": "omar", "attribute": "age", "value": 30, "valid_from": T1, "source": "e9"}
    mistyped = {"subject": "lena", "attribute": "age", "value": "old", "valid_from": T1, "source": "e1"}
    with pytest.raises(ValidationError) as validation:
        memory.write_many("acme", [conflict, unknown, mistyped])
    assert validation.value.field == "facts[2].value"
    with pytest.raises(NotFoundError) as not_found:
        memory.write_many("acme", [conflict, unknown])
    assert not_found.value.field == "facts[1].source"
    with pytest.raises(ConflictError, match=r"^facts\[0\]: "):
        memory.write_many("acme", [conflict])


@pytest.mark.parametrize("item", ["x", 5, None, ["mira", "city"]])
def test_write_many_refuses_items_that_are_not_facts(memory: Memory, item: Any) -> None:
    seed(memory)
    good = Fact("mira", "city", "Paris", T1, "e1")
    with pytest.raises(ValidationError) as caught:
        memory.write_many("acme", [good, item])
    assert caught.value.field == "facts[1]"
    assert memory.query("acme", all_times=True) == []


# query, history, versions -----------------------------------------------------------


def populate(memory: Memory, clock: ManualClock) -> datetime:
    seed(memory)
    memory.declare("acme", "diet", "string", memory_type="preference")
    memory.write("acme", "mira", "city", "Paris", T1, "e1")
    memory.write("acme", "mira", "diet", "vegan", T1, "e1")
    memory.write("acme", "omar", "city", "Cairo", T1, "e1")
    memory.write("acme", "omar", "diet", "keto", T1, "e1")
    first = clock.now
    clock.advance()
    memory.write("acme", "mira", "city", "Rome", T2, "e1")
    memory.write("acme", "lena", "city", "Bonn", T3, "e1")
    return first


def keys(found: list[Any]) -> list[tuple[str, str, Any]]:
    return [(a.subject, a.attribute, a.value) for a in found]


def test_query_filters(memory: Memory, clock: ManualClock) -> None:
    first = populate(memory, clock)
    assert keys(memory.query("acme")) == [
        ("lena", "city", "Bonn"), ("mira", "city", "Rome"), ("mira", "diet", "vegan"),
        ("omar", "city", "Cairo"), ("omar", "diet", "keto"),
    ]
    assert keys(memory.query("acme", subject="mira")) == [("mira", "city", "Rome"), ("mira", "diet", "vegan")]
    assert keys(memory.query("acme", attribute="diet")) == [("mira", "diet", "vegan"), ("omar", "diet", "keto")]
    assert keys(memory.query("acme", memory_type="preference")) == keys(memory.query("acme", attribute="diet"))
    assert keys(memory.query("acme", memory_type="fact", subject="omar")) == [("omar", "city", "Cairo")]
    assert keys(memory.query("acme", subject="mira", attribute="city", at="2026-06-05T00:00:00Z")) == [
        ("mira", "city", "Paris")]
    assert keys(memory.query("acme", at="2026-06-15T00:00:00Z", attribute="city")) == [
        ("mira", "city", "Rome"), ("omar", "city", "Cairo")]
    assert keys(memory.query("acme", known_at=first, attribute="city")) == [
        ("mira", "city", "Paris"), ("omar", "city", "Cairo")]
    assert keys(memory.query("acme", subject="mira", attribute="city", all_times=True)) == [
        ("mira", "city", "Paris"), ("mira", "city", "Rome")]
    assert memory.query("globex") == []


def test_query_pages_with_opaque_cursors(memory: Memory, clock: ManualClock) -> None:
    populate(memory, clock)
    everything = memory.query("acme", all_times=True)
    assert len(everything) == 6 and everything.next_cursor is None
    pages: list[Any] = []
    cursor = None
    while True:
        page = memory.query("acme", all_times=True, limit=2, cursor=cursor)
        assert len(page) == 2
        pages.extend(page)
        cursor = page.next_cursor
        if cursor is None:
            break
        assert isinstance(cursor, str) and "mira" not in cursor
    assert pages == everything
    assert memory.query("acme", all_times=True, limit=6).next_cursor is None


@pytest.mark.parametrize("limit", [0, -1, 10_001, True, 2.5])
def test_query_limit_is_validated(memory: Memory, limit: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        memory.query("acme", limit=limit)
    assert caught.value.field == "limit"


def test_versions_are_the_full_bitemporal_record(memory: Memory, clock: ManualClock) -> None:
    """A superseding write appends one version, which ends the one it replaces (Paris keeps
    its recording time); a correction retires the version it corrects."""
    seed(memory)
    created = memory.write("acme", "mira", "city", "Paris", T1, "e1")
    t_created = clock.now
    clock.advance()
    superseding = memory.write("acme", "mira", "city", "Rome", T2, "e1")
    t_superseded = clock.now
    clock.advance()
    corrected = memory.correct("acme", "mira", "city", T2, "Milan", "e1")
    t_corrected = clock.now
    versions = memory.versions("acme", "mira", "city")
    summary = [(v.value, v.valid_from.isoformat(), v.valid_to and v.valid_to.isoformat(),
                v.recorded_at, v.superseded_at, v.origin) for v in versions]
    assert summary == [
        ("Paris", "2026-06-01T00:00:00+00:00", "2026-06-10T00:00:00+00:00", t_created, None, "write"),
        ("Rome", "2026-06-10T00:00:00+00:00", None, t_superseded, t_corrected, "write"),
        ("Milan", "2026-06-10T00:00:00+00:00", None, t_corrected, None, "correct"),
    ]
    assert created.assertion is not None and superseding.assertion is not None
    assert superseding.assertion.supersedes == created.assertion.id
    assert corrected.effect is Effect.CORRECTED
    assert corrected.assertion is not None and corrected.assertion.supersedes == superseding.assertion.id
    assert versions[0].closed_by == "e1"
    paris_then = memory.get("acme", "mira", "city", at=T2, known_at=t_created)
    assert paris_then is not None and paris_then.value == "Paris" and paris_then.valid_to is None
    assert memory.versions("globex", "mira", "city") == []


def test_results_and_reads_are_utc(memory: Memory) -> None:
    memory.add_episode("acme", "e1", "2026-06-01T02:00:00+02:00", "tz")
    result = memory.write("acme", "mira", "city", "Paris", "2026-06-01T02:00:00.123456+02:00", "e1")
    assert result.assertion is not None
    assert result.assertion.valid_from.isoformat() == "2026-06-01T00:00:00.123456+00:00"
    episode = memory.episode("acme", "e1")
    assert episode is not None and episode.at.isoformat() == "2026-06-01T00:00:00+00:00"


# typed memory types -----------------------------------------------------------------


class Contact(BaseModel):
    name: str
    age: int


def test_registered_memory_type_rejects_bad_values_by_field(memory: Memory) -> None:
    seed(memory)
    schema = memory.register_memory_type("acme", "contact", Contact)
    assert schema.name == "contact" and schema.json_schema is not None
    ok = memory.write("acme", "mira", "card", {"name": "Mira", "age": 41}, T1, "e1", memory_type="contact")
    assert ok.assertion is not None and ok.assertion.memory_type == "contact"
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "omar", "card", {"name": "Omar", "age": "old"}, T1, "e1", memory_type="contact")
    assert caught.value.field == "value.age"
    assert "value.age" in caught.value.message and "'old'" in caught.value.message
    with pytest.raises(ValidationError) as missing:
        memory.write("acme", "omar", "card", {"age": 3}, T1, "e1", memory_type="contact")
    assert missing.value.field == "value.name"
    assert memory.history("acme", "omar", "card") == []
    # another tenant has no such type: any value goes
    seed(memory, "globex")
    memory.write("globex", "omar", "card", {"age": "old"}, T1, "e1", memory_type="contact")


def test_memory_type_is_enforced_through_the_attribute_declaration(memory: Memory) -> None:
    seed(memory)
    memory.register_memory_type("acme", "contact", Contact)
    memory.declare("acme", "card", "object", memory_type="contact")
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "omar", "card", {"name": 5, "age": 1}, T1, "e1")
    assert caught.value.field == "value.name"


def test_stored_json_schema_validates_without_the_model(store_url: str, clock: ManualClock) -> None:
    url = store_url
    with Memory(url, clock=clock) as first:
        seed(first)
        first.register_memory_type("acme", "contact", Contact)
    with Memory(url, clock=clock) as second:
        with pytest.raises(ValidationError) as caught:
            second.write("acme", "omar", "card", {"name": "Omar", "age": "old"}, T1, "e1", memory_type="contact")
        assert caught.value.field == "value.age"
        second.write("acme", "omar", "card", {"name": "Omar", "age": 7}, T1, "e1", memory_type="contact")


class Person(BaseModel):
    name: str
    age: int
    born: date | None = None
    score: float = 0.0


@pytest.mark.parametrize(("value", "accepted"), [
    ({"name": "Mira", "age": 41}, True),
    ({"name": "Mira", "age": 41.0, "score": 3}, True),
    ({"name": "Mira", "age": 41, "born": "2020-01-02"}, True),
    ({"name": "Mira", "age": "41"}, False),
    ({"name": "Mira", "age": True}, False),
    ({"name": "Mira", "age": 41.5}, False),
    ({"name": 5, "age": 41}, False),
    ({"name": "Mira", "age": 41, "born": "2020-02-30"}, False),
    ({"name": "Mira", "age": 41, "born": "02/01/2020"}, False),
])
def test_the_model_and_its_stored_schema_agree(store_url: str, clock: ManualClock, value: dict[str, Any],
                                              accepted: bool) -> None:
    """A process with the Pydantic model and one with only the stored JSON Schema accept
    and refuse the same values: the model must not coerce ("41" or true into 41) what
    is then stored unchanged."""
    url = store_url
    with Memory(url, clock=clock) as with_model, Memory(url, clock=clock) as schema_only:
        seed(with_model)
        with_model.register_memory_type("acme", "person", Person)
        for index, memory in enumerate((with_model, schema_only)):
            try:
                memory.write("acme", f"s{index}", "card", value, T1, "e1", memory_type="person")
            except ValidationError as exc:
                assert not accepted, exc
                assert exc.field is not None and exc.field.startswith("value.")
            else:
                assert accepted, f"accepted {value} ({'model' if index == 0 else 'stored schema'})"


@pytest.mark.parametrize(("name", "model"), [("fact", Contact), ("preference", Contact), ("contact", dict),
                                             ("bad name\n", Contact)])
def test_register_memory_type_refuses(memory: Memory, name: str, model: Any) -> None:
    with pytest.raises(ValidationError):
        memory.register_memory_type("acme", name, model)


def test_declared_type_error_names_field_value_and_rule(memory: Memory) -> None:
    seed(memory)
    memory.declare("acme", "age", "integer")
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "mira", "age", "forty", T1, "e1")
    error = caught.value
    assert (error.field, error.value, error.rule) == ("value", "forty", "must be of declared type integer")
    assert str(error) == "value: must be of declared type integer (got 'forty')"
    assert isinstance(error, ValueError)
    with pytest.raises(ValidationError) as unknown:
        memory.declare("acme", "age", "money")
    assert unknown.value.field == "type" and "integer" in unknown.value.rule


# limits, names, tenants -------------------------------------------------------------


def test_episode_text_limit(memory: Memory) -> None:
    memory.add_episode("acme", "fits", T1, "a" * (256 * 1024))
    with pytest.raises(ValidationError) as caught:
        memory.add_episode("acme", "too_big", T1, "a" * (256 * 1024 + 1))
    assert caught.value.field == "text" and "262144" in caught.value.rule
    assert memory.episode("acme", "too_big") is None
    # the limit is in bytes, not characters
    with pytest.raises(ValidationError):
        memory.add_episode("acme", "wide", T1, "é" * (128 * 1024 + 1))


def test_value_limit(memory: Memory) -> None:
    seed(memory)
    fits = "v" * (64 * 1024 - 2)  # the canonical JSON adds two quotes
    memory.write("acme", "mira", "blob", fits, T1, "e1")
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "mira", "blob", fits + "v", T2, "e1")
    assert caught.value.field == "value" and "65536" in caught.value.rule
    with pytest.raises(ValidationError):
        memory.write("acme", "mira", "obj", {"k": ["x" * 1024] * 64}, T1, "e1")
    assert [a.value for a in memory.history("acme", "mira", "blob")] == [fits]


@pytest.mark.parametrize("bad", ["a\nb", "tab\there", "nul\x00", "bell\x07", "del\x7f", "", "   ", "x" * 257])
def test_names_refuse_control_characters_and_blanks(memory: Memory, bad: str) -> None:
    seed(memory)
    calls: list[tuple[str, Any]] = [
        ("subject", lambda: memory.write("acme", bad, "city", "Paris", T1, "e1")),
        ("attribute", lambda: memory.write("acme", "mira", bad, "Paris", T1, "e1")),
        ("source", lambda: memory.write("acme", "mira", "city", "Paris", T1, bad)),
        ("id", lambda: memory.add_episode("acme", bad, T1, "text")),
        ("subject", lambda: memory.get("acme", bad, "city")),
        ("episode", lambda: memory.forget_episode("acme", bad)),
    ]
    for field, call in calls:
        with pytest.raises(ValidationError) as caught:
            call()
        assert caught.value.field == field
    assert memory.query("acme", all_times=True) == []


@pytest.mark.parametrize("tenant", ["a b", "", "x'; drop table", "-leading", "t" * 129, "tab\t", "é"])
def test_bad_tenants_are_refused_everywhere(memory: Memory, tenant: str) -> None:
    calls: list[Any] = [
        lambda: memory.add_episode(tenant, "e1", T1, "text"),
        lambda: memory.write(tenant, "mira", "city", "Paris", T1, "e1"),
        lambda: memory.get(tenant, "mira", "city"),
        lambda: memory.history(tenant, "mira", "city"),
        lambda: memory.query(tenant),
        lambda: memory.forget_subject(tenant, "mira"),
        lambda: memory.declare(tenant, "city", "string"),
    ]
    for call in calls:
        with pytest.raises(ValidationError) as caught:
            call()
        assert caught.value.field == "tenant"


@pytest.mark.parametrize("tenant", ["acme", "a", "org_1.team-2:eu@x", "T" * 128])
def test_good_tenants(memory: Memory, tenant: str) -> None:
    seed(memory, tenant)
    memory.write(tenant, "mira", "city", "Paris", T1, "e1")
    found = memory.get(tenant, "mira", "city")
    assert found is not None and found.tenant == tenant


@pytest.mark.parametrize("moment", ["2026-06-01T00:00:00", "2026-06-01", datetime(2026, 6, 1), "yesterday", 12])
def test_timestamps_need_a_zone(memory: Memory, moment: Any) -> None:
    seed(memory)
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "mira", "city", "Paris", moment, "e1")
    assert caught.value.field == "valid_from"
    with pytest.raises(ValidationError) as read:
        memory.get("acme", "mira", "city", known_at=moment)
    assert read.value.field == "known_at"


@pytest.mark.parametrize("confidence", [-0.1, 1.5, True, "high"])
def test_confidence_is_validated(memory: Memory, confidence: Any) -> None:
    seed(memory)
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "mira", "city", "Paris", T1, "e1", confidence=confidence)
    assert caught.value.field == "confidence"


def test_not_found_and_conflict_messages_name_what_is_missing(memory: Memory) -> None:
    seed(memory)
    with pytest.raises(NotFoundError) as source:
        memory.write("acme", "mira", "city", "Paris", T1, "e404")
    assert source.value.field == "source" and "e404" in source.value.message and "acme" in source.value.message
    memory.write("acme", "mira", "city", "Paris", T1, "e1")
    with pytest.raises(ConflictError) as conflict:
        memory.write("acme", "mira", "city", "Rome", T1, "e1")
    assert conflict.value.field == "valid_from" and '"Paris"' in conflict.value.message
    with pytest.raises(NotFoundError) as retract:
        memory.retract("acme", "mira", "city", T1, "e1")
    assert retract.value.field == "at"
    with pytest.raises(NotFoundError) as correct:
        memory.correct("acme", "mira", "city", T2, "Rome", "e1")
    assert correct.value.field == "valid_from"
    with pytest.raises(ConflictError) as episode:
        memory.add_episode("acme", "e1", T1, "other text")
    assert episode.value.field == "id" and "'e1'" in episode.value.message
    assert episode.value.to_dict() == {"kind": "conflict", "message": episode.value.message, "field": "id"}


# erasure ----------------------------------------------------------------------------


def database_bytes(memory: Memory) -> bytes:
    path = getattr(memory.backend, "path", None)
    if path is None:
        pytest.skip("physical erasure is checked on the SQLite file")
    data = Path(path).read_bytes()
    wal = Path(f"{path}-wal")
    return data + (wal.read_bytes() if wal.exists() else b"")


def test_forget_episode_removes_the_bytes_from_the_file_and_wal(memory: Memory, clock: ManualClock) -> None:
    secret_text = "SECRET-EPISODE-TEXT-5c1f9e"
    secret_value = "SECRET-VALUE-a77d03"
    secret_fix = "SECRET-CORRECTION-0b64"
    memory.add_episode("acme", "keep", T1, "ordinary episode " * 50)
    memory.add_episode("acme", "secret", T1, secret_text * 20)
    for index in range(200):
        memory.write("acme", f"user{index}", "note", f"ordinary value {index}", T1, "keep")
    memory.write("acme", "mira", "code", secret_value, T2, "secret")
    clock.advance()
    memory.write("acme", "mira", "code", "public", T3, "keep")
    memory.correct("acme", "mira", "code", T2, secret_fix, "secret")
    assert secret_text.encode() in database_bytes(memory)
    memory.forget_episode("acme", "secret")
    raw = database_bytes(memory)
    for secret in (secret_text, secret_value, secret_fix):
        assert secret.encode() not in raw, secret
    assert b"ordinary value 199" in raw
    assert memory.episode("acme", "secret") is None
    assert [a.value for a in memory.history("acme", "mira", "code")] == ["public"]
    assert all(secret_value not in str(a.value) for a in memory.versions("acme", "mira", "code"))


def test_forget_subject_removes_the_bytes_from_the_file_and_wal(memory: Memory, clock: ManualClock) -> None:
    seed(memory)
    secrets = [f"SUBJECT-SECRET-{index}-e3b1" for index in range(3)]
    for index, secret in enumerate(secrets):
        memory.write("acme", "mira", f"attr{index}", secret, T1, "e1")
        clock.advance()
        memory.write("acme", "mira", f"attr{index}", secret + "-later", T2, "e1")
    assert secrets[0].encode() in database_bytes(memory)
    result = memory.forget_subject("acme", "mira")
    assert (result.operations_removed, result.keys_rederived) == (6, 3)
    raw = database_bytes(memory)
    for secret in secrets:
        assert secret.encode() not in raw
    assert memory.query("acme", all_times=True, known_at=clock.now - timedelta(seconds=10)) == []


def test_erasure_leaves_no_term_in_the_full_text_indexes(memory: Memory, clock: ManualClock) -> None:
    """Full-text indexes keep deleted terms in old segments unless they are merged: a
    single word of an erased episode or subject must not survive anywhere in the file."""
    seed(memory)
    for index in range(300):
        memory.add_episode("acme", f"chat{index}", T1, f"ordinary chatter number {index} about lunch")
    memory.add_episode("acme", "secret", T1, "zanzibarquux is the locker code")
    memory.write("acme", "qwyxsubject", "locker", "1234", T1, "e1")
    assert b"zanzibarquux" in database_bytes(memory)
    memory.forget_episode("acme", "secret")
    memory.forget_subject("acme", "qwyxsubject")
    raw = database_bytes(memory)
    assert b"zanzibarquux" not in raw
    assert b"qwyxsubject" not in raw
    assert b"ordinary chatter" in raw


# inputs that must fail as ValidationError, never as a bare Python exception -----------


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("call", "field"), [
    (lambda m: m.write("acme", "s", "a", "v", "9999-12-31T23:59:59-23:59", "e1"), "valid_from"),
    (lambda m: m.write("acme", "s", "a", "v", "0001-01-01T00:00:00+01:00", "e1"), "valid_from"),
    (lambda m: m.get("acme", "s", "a", at=datetime.max.replace(tzinfo=UTC_MINUS_5)), "at"),
    (lambda m: m.add_episode("acme", "e2", "9999-12-31T23:59:59-01:00", "t"), "at"),
    (lambda m: m.write("acme", "s", "a", "v", T1, "e1", confidence=10**400), "confidence"),
    (lambda m: m.write("acme", "s", "a", "bad \ud800 text", T1, "e1"), "value"),
    (lambda m: m.write("acme", "s", "a", {"k\udfff": 1}, T1, "e1"), "value"),
    (lambda m: m.write("acme", "s\ud800", "a", "v", T1, "e1"), "subject"),
    (lambda m: m.add_episode("acme", "e2", T1, "lone \ud800"), "text"),
    (lambda m: m.declare("acme", "a", "string", description=["not text"]), "description"),
    (lambda m: m.declare("acme", "a", "string", description=10**400), "description"),
])
def test_bad_inputs_are_validation_errors(memory: Memory, call: Any, field: str) -> None:
    seed(memory)
    with pytest.raises(ValidationError) as caught:
        call(memory)
    assert caught.value.field == field
    assert memory.query("acme", all_times=True) == []


def test_value_nesting_depth(memory: Memory) -> None:
    seed(memory)
    memory.write("acme", "s", "ok", nested(100), T1, "e1")
    found = memory.get("acme", "s", "ok", at=T1)
    assert found is not None and found.value == nested(100)
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "s", "deep", nested(101), T1, "e1")
    assert "nested deeper than 100" in caught.value.rule
    with pytest.raises(ValidationError):
        memory.write("acme", "s", "deep", nested(5000), T1, "e1")


def test_numbers_too_large_for_json_text(memory: Memory) -> None:
    seed(memory)
    memory.write("acme", "s", "fits", 10**4000, T1, "e1")
    with pytest.raises(ValidationError) as caught:
        memory.write("acme", "s", "huge", [10**5000], T1, "e1")
    assert caught.value.field == "value" and "too large" in caught.value.rule


def test_a_clock_that_steps_back_never_inverts_a_keys_transaction_time(memory: Memory, clock: ManualClock) -> None:
    """Wall clocks step back (NTP); a key's recorded intervals must stay ordered."""
    seed(memory)
    clock.advance(3600)
    late = clock.now
    memory.write("acme", "mira", "city", "Paris", T1, "e1")
    clock.advance(-1800)
    moved = memory.write("acme", "mira", "city", "Rome", T2, "e1")
    assert moved.assertion is not None and moved.assertion.recorded_at == late
    batch = memory.write_many("acme", [Fact("mira", "city", "Oslo", T3, "e1")])
    assert batch[0].assertion is not None and batch[0].assertion.recorded_at == late
    other = memory.write("acme", "omar", "city", "Cairo", T1, "e1")
    assert other.assertion is not None and other.assertion.recorded_at == clock.now < late
    for version in memory.versions("acme", "mira", "city"):
        assert version.superseded_at is None or version.superseded_at > version.recorded_at
    assert [a.value for a in memory.history("acme", "mira", "city")] == ["Paris", "Rome", "Oslo"]
