"""New versions of a typed memory type (a Pydantic model) as recorded steps: stored values
converted by the caller's function from the step's transaction time on, what it cannot
convert set aside with the reason, erasure and expiry reaching both, re-derivation
without the function, and a refusal that changes nothing."""

from __future__ import annotations

import itertools
import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from sgam import Memory, ValidationError
from sgam.cli import app
from sgam.store import Backend

from .conftest import ManualClock, Store

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


class TripV1(BaseModel):
    city: str
    nights: str


class TripV2(BaseModel):
    destination: str
    nights: int


class TripV2Loose(BaseModel):
    destination: str
    nights: int | str


def upgrade(old: dict[str, Any]) -> TripV2:
    return TripV2(destination=old["city"], nights=int(old["nights"]))


def _trips(memory: Memory, clock: ManualClock, tenant: str = "t") -> None:
    memory.register_memory_type(tenant, "trip", TripV1)
    memory.declare(tenant, "plan", "object", memory_type="trip")
    memory.add_episode(tenant, "e1", T1, "Ann: Paris for 3 nights")
    memory.add_episode(tenant, "e2", T2, "Bob: Rome, many nights")
    memory.write(tenant, "ann", "plan", {"city": "Paris", "nights": "3"}, T1, "e1")
    memory.write(tenant, "bob", "plan", {"city": "Rome", "nights": "many"}, T2, "e2")
    clock.advance(60)


def _value(memory: Memory, subject: str, **kw: Any) -> Any:
    found = memory.get("t", subject, "plan", **kw)
    return None if found is None else found.value


def test_a_new_version_converts_stored_values_from_its_transaction_time_on(
        memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    before = clock.now
    clock.advance(60)
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade, decided_by="ops")
    assert _value(memory, "ann") == {"destination": "Paris", "nights": 3}
    assert _value(memory, "ann", known_at=before) == {"city": "Paris", "nights": "3"}
    assert _value(memory, "bob") is None
    assert _value(memory, "bob", known_at=before) == {"city": "Rome", "nights": "many"}
    [set_aside] = memory.quarantined("t")
    assert (set_aside.subject, set_aside.attribute, set_aside.value) == ("bob", "plan", {"city": "Rome",
                                                                                      "nights": "many"})
    assert "ValueError" in set_aside.reason and "many" in set_aside.reason
    [step] = memory.schema_history("t")
    assert (step.kind, step.attribute, step.decided_by) == ("retype", "plan", "ops")
    assert step.detail["memory_type"] == "trip" and step.detail["convert"] is True
    assert step.detail["version"] > step.detail["from_version"]


def test_writes_after_the_step_must_be_of_the_new_version(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    with pytest.raises(ValidationError) as caught:
        memory.write("t", "cy", "plan", {"city": "Oslo", "nights": "2"}, T3, "e2")
    assert caught.value.field == "value.destination"
    memory.write("t", "cy", "plan", {"destination": "Oslo", "nights": 2}, T3, "e2")
    assert memory.get("t", "cy", "plan").value == {"destination": "Oslo", "nights": 2}  # type: ignore[union-attr]


def test_a_process_holding_the_old_model_validates_writes_against_the_new_version(
        store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as old, Memory(store.url, clock=clock) as new:
        _trips(old, clock)
        new.register_memory_type("t", "trip", TripV2, convert=upgrade)
        with pytest.raises(ValidationError):
            old.write("t", "cy", "plan", {"city": "Oslo", "nights": "2"}, T3, "e2")
        old.write("t", "cy", "plan", {"destination": "Oslo", "nights": 2}, T3, "e2")


def test_a_result_the_new_model_refuses_is_set_aside_with_the_reason(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    memory.register_memory_type("t", "trip", TripV2, convert=lambda old: {"destination": old["city"]})
    reasons = {q.subject: q.reason for q in memory.quarantined("t", "plan")}
    assert set(reasons) == {"ann", "bob"}
    assert "does not validate" in reasons["ann"] and "nights" in reasons["ann"]


@pytest.mark.parametrize("backfill", [None, True], ids=["in-its-transaction", "backfilled"])
def test_without_a_conversion_values_the_model_refuses_change_nothing(
        memory: Memory, clock: ManualClock, backfill: bool | None) -> None:
    _trips(memory, clock)
    with pytest.raises(ValidationError) as caught:
        memory.register_memory_type("t", "trip", TripV2, backfill=backfill)
    assert (caught.value.field, caught.value.value) == ("model", "trip")
    assert "2 stored value(s) of memory type 'trip'" in caught.value.message
    assert "Paris" in caught.value.message
    assert memory.schema_history("t") == [] and memory.backfills("t") == []
    _, types = memory.schema("t")
    assert types[0].json_schema == TripV1.model_json_schema()
    memory.write("t", "ann", "plan", {"city": "Paris", "nights": "4"}, T2, "e1")  # still the old version
    assert memory.quarantined("t") == []


def test_a_backfilled_version_reads_as_one_converted_in_its_transaction(memory: Memory, clock: ManualClock) -> None:
    """``backfill=True``: the function is called on every value while the step is taken,
    a batch of subjects at a time, never again; until the backfill has run, reads convert
    on the fly, and every read, before, during and after, equals the same version taken
    in one transaction."""
    subjects = [f"p{number}" for number in range(7)]
    for tenant in ("whole", "big"):
        memory.register_memory_type(tenant, "trip", TripV1)
        memory.declare(tenant, "plan", "object", memory_type="trip")
        memory.add_episode(tenant, "e1", T1, "trips")
        for number, subject in enumerate(subjects):
            memory.write(tenant, subject, "plan", {"city": "Paris", "nights": str(number)}, T1, "e1")
            nights = "many" if number % 3 == 0 else str(number + 1)
            memory.write(tenant, subject, "plan", {"city": "Rome", "nights": nights}, T2, "e1")
    clock.advance(60)
    before = clock.now
    clock.advance(60)
    calls: list[dict[str, Any]] = []

    def counted(old: dict[str, Any]) -> TripV2:
        calls.append(old)
        return upgrade(old)

    memory.register_memory_type("whole", "trip", TripV2, convert=upgrade)
    memory.register_memory_type("big", "trip", TripV2, convert=counted, backfill=True, wait=False)
    distinct = {json.dumps(old, sort_keys=True) for old in calls}
    assert len(calls) == len(distinct) == 12  # every distinct stored value, once (p0, p3, p6 share "many")

    def reads(tenant: str) -> list[Any]:
        found = [[memory.get(tenant, s, "plan"), memory.get(tenant, s, "plan", at=T1),
                  memory.get(tenant, s, "plan", known_at=before), memory.history(tenant, s, "plan")]
                 for s in subjects]
        shaped = json.loads(json.dumps(found, sort_keys=True, default=lambda a: (
            [a.value, a.valid_from, a.valid_to, a.recorded_at, a.superseded_at] if hasattr(a, "value") else str(a))))
        return [shaped, sorted((q.subject, json.dumps(q.value), q.reason) for q in memory.quarantined(tenant, "plan"))]

    [pending] = memory.backfills("big")
    assert (pending.attribute, pending.finished) == ("plan", False)
    assert reads("big")[0] == reads("whole")[0]
    memory.run_backfill("big", batch=3, max_batches=1)
    assert reads("big")[0] == reads("whole")[0]
    memory.run_backfill("big")
    assert reads("big") == reads("whole")
    assert len(calls) == 12  # the backfill read what the function made


def test_without_a_conversion_values_that_validate_are_kept_as_a_step(memory: Memory, clock: ManualClock) -> None:
    memory.register_memory_type("t", "trip", TripV2Loose)
    memory.add_episode("t", "e1", T1, "x")
    memory.write("t", "ann", "trip_plan", {"destination": "Paris", "nights": 3}, T1, "e1", memory_type="trip")
    memory.register_memory_type("t", "trip", TripV2Loose)  # the same model again: no step
    assert memory.schema_history("t") == []
    memory.register_memory_type("t", "trip", TripV2)
    [step] = memory.schema_history("t")
    assert (step.attribute, step.detail["convert"]) == ("trip_plan", False)
    assert memory.get("t", "ann", "trip_plan").value == {"destination": "Paris", "nights": 3}  # type: ignore[union-attr]


def test_the_previous_model_gives_the_function_an_instance(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)

    def from_v1(old: TripV1) -> TripV2:
        return TripV2(destination=old.city.upper(), nights=int(old.nights))

    memory.register_memory_type("t", "trip", TripV2, convert=from_v1, previous=TripV1)
    assert _value(memory, "ann") == {"destination": "PARIS", "nights": 3}
    with pytest.raises(ValidationError) as caught:
        memory.register_memory_type("t", "trip", TripV2, previous=dict)  # type: ignore[arg-type]
    assert caught.value.field == "previous"


def test_re_deriving_later_reads_what_the_function_made(store: Store, clock: ManualClock) -> None:
    """A later step and an erasure replay the attribute in a process that never had the
    function: each value reads as the function converted it."""
    with Memory(store.url, clock=clock) as memory:
        _trips(memory, clock)
        memory.add_episode("t", "e3", T3, "Cy: Oslo for 2 nights")
        memory.write("t", "cy", "plan", {"city": "Oslo", "nights": "2"}, T3, "e3")
        before = clock.now
        clock.advance(60)
        memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    clock.advance(60)
    with Memory(store.url, clock=clock) as other:
        other.rename_attribute("t", "plan", "trip_plan")
        other.forget_episode("t", "e3")
        assert other.get("t", "ann", "trip_plan").value == {"destination": "Paris", "nights": 3}  # type: ignore[union-attr]
        assert other.get("t", "cy", "trip_plan") is None
        assert other.get("t", "ann", "plan", known_at=before).value == {"city": "Paris", "nights": "3"}  # type: ignore[union-attr]
        assert [q.subject for q in other.quarantined("t")] == ["bob"]


def _seqs(backend: Backend) -> list[int]:
    """The operations of ``plan`` in tenant t."""
    return backend.run_write("t", lambda txn: [op.seq for op in txn.operations_of_attributes(["plan"])])


def _converted_rows(backend: Backend, seqs: list[int]) -> list[Any]:
    with backend.read("t") as reader:
        return reader.converted_values(seqs)


def test_erasure_reaches_values_a_version_converted_or_set_aside(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    seqs = _seqs(memory.backend)
    assert len(_converted_rows(memory.backend, seqs)) == 2
    memory.forget_episode("t", "e2")
    assert memory.quarantined("t") == []
    assert len(_converted_rows(memory.backend, seqs)) == 1
    memory.forget_subject("t", "ann")
    assert _converted_rows(memory.backend, seqs) == []
    assert not memory.residue("t", "Rome").found


def test_forgetting_a_subject_reaches_what_was_set_aside(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    memory.declare("t", "budget", "string")
    memory.write("t", "bob", "budget", "lots", T1, "e2")
    memory.retype("t", "budget", "integer", quarantine=True)
    assert [(q.attribute, q.subject) for q in memory.quarantined("t")] == [("budget", "bob"), ("plan", "bob")]
    memory.forget_subject("t", "bob")
    assert memory.quarantined("t") == []
    assert memory.residue("t", "lots").places.get("table quarantine") is None


def test_expiry_reaches_a_value_a_version_set_aside(memory: Memory, clock: ManualClock) -> None:
    memory.register_memory_type("t", "trip", TripV1)
    memory.add_episode("t", "e1", T1, "Bob: Rome")
    memory.write("t", "bob", "plan", {"city": "Rome", "nights": "many"}, T1, "e1", memory_type="trip",
                 expires_at=clock.now + timedelta(hours=1))
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    assert [q.subject for q in memory.quarantined("t")] == ["bob"]
    seqs = _seqs(memory.backend)
    clock.advance(7200)
    memory.purge("t")
    assert memory.quarantined("t") == []
    assert _converted_rows(memory.backend, seqs) == []


def test_a_later_version_that_converts_a_set_aside_value_gives_it_back(memory: Memory, clock: ManualClock) -> None:
    _trips(memory, clock)
    memory.register_memory_type("t", "trip", TripV2, convert=upgrade)
    clock.advance(60)
    words = {"many": 9}

    def fix(old: dict[str, Any]) -> dict[str, Any]:
        if "city" in old:  # a value set aside in the old shape
            return {"destination": old["city"], "nights": words[old["nights"]]}
        return old

    memory.register_memory_type("t", "trip", TripV2, convert=fix)
    assert memory.quarantined("t") == []
    assert _value(memory, "bob") == {"destination": "Rome", "nights": 9}
    assert _value(memory, "ann") == {"destination": "Paris", "nights": 3}


def test_the_step_and_the_reason_are_shown_by_the_cli(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        _trips(memory, clock)
        memory.register_memory_type("t", "trip", TripV2, convert=upgrade, origin="trips-v2")

    def sgam(*args: str) -> Any:
        result = CliRunner().invoke(app, ["schema", *args, "--tenant", "t", "--db", store.url, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    [step] = sgam("history")
    assert (step["kind"], step["attribute"], step["origin"]) == ("retype", "plan", "trips-v2")
    assert step["detail"]["memory_type"] == "trip"
    [set_aside] = sgam("quarantine")
    assert set_aside["subject"] == "bob" and set_aside["reason"].startswith("the conversion function raised")
    shown = CliRunner().invoke(app, ["schema", "quarantine", "--tenant", "t", "--db", store.url])
    assert "ValueError" in shown.output


NIGHTS = st.one_of(st.integers(-5, 200), st.text(alphabet="0123456789ab", max_size=3))
TENANTS = itertools.count()


def _double(old: dict[str, Any]) -> dict[str, Any]:
    """Fails on a negative number of nights, and gives a value TripV2 refuses past 100."""
    nights = int(old["nights"])
    if nights < 0:
        raise ValueError("negative nights")
    return {"destination": old["city"], "nights": nights * 2 if nights <= 100 else str(nights)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(NIGHTS, min_size=1, max_size=5))
def test_every_value_reads_as_converted_or_is_set_aside(memory: Memory, clock: ManualClock, stored: list[Any]) -> None:
    """Property: for any stored values, the read after the step is the conversion of the
    read before it, or the value is set aside and reads as nothing."""
    tenant = f"h{next(TENANTS)}"
    memory.register_memory_type(tenant, "trip", TripV1)
    memory.add_episode(tenant, "e", T1, "x")
    for index, nights in enumerate(stored):
        memory.write(tenant, f"s{index}", "plan", {"city": "C", "nights": str(nights)}, T1, "e", memory_type="trip")
    clock.advance(1)
    before = clock.now
    clock.advance(1)
    memory.register_memory_type(tenant, "trip", TripV2, convert=_double)
    set_aside = {q.subject for q in memory.quarantined(tenant)}
    for index in range(len(stored)):
        subject = f"s{index}"
        old = memory.get(tenant, subject, "plan", known_at=before)
        new = memory.get(tenant, subject, "plan")
        assert old is not None
        try:
            expected: Any = TripV2.model_validate(_double(old.value)).model_dump(mode="json")
            TripV2.model_validate_json(json.dumps(_double(old.value)), strict=True)
        except Exception:  # noqa: BLE001 - the function or the model refuses it: set aside
            expected = None
        if expected is None:
            assert new is None and subject in set_aside
        else:
            assert new is not None and new.value == expected and subject not in set_aside
