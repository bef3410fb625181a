"""Schema migrations as recorded steps: conversions of the spec, erasure that reaches
values a migration converted or set aside, and what a step refuses changing nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgam import ConflictError, Memory, NotFoundError, ValidationError
from sgam._core.conversions import Screen, check_map, convert, convert_all
from sgam._core.schema import ValueType
from sgam._core.values import canonical_json

from .conftest import ManualClock

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


@pytest.mark.parametrize(("value", "value_type", "expected"), [
    (3, ValueType.NUMBER, 3), (3.0, ValueType.INTEGER, 3), (3.5, ValueType.INTEGER, None),
    (7, ValueType.STRING, "7"), (True, ValueType.STRING, "true"), (2.5, ValueType.STRING, "2.5"),
    ("42", ValueType.INTEGER, 42), ("4.2", ValueType.NUMBER, 4.2), ("4.2", ValueType.INTEGER, None),
    (" 42", ValueType.INTEGER, None), ("lots", ValueType.NUMBER, None),
    ("2026-07-15", ValueType.DATETIME, "2026-07-15T00:00:00Z"),
    ("2026-07-15T00:00:00Z", ValueType.DATE, "2026-07-15"), ("2026-07-15T09:00:00Z", ValueType.DATE, None),
    ({"a": 1}, ValueType.ARRAY, [{"a": 1}]), ("x", ValueType.STRING, "x"), ("x", ValueType.BOOLEAN, None),
])
def test_the_built_in_conversions_of_the_spec(value: object, value_type: ValueType, expected: object) -> None:
    found = convert(json.dumps(value), value_type, {})
    assert (None if found is None else json.loads(found)) == expected


def test_a_map_comes_first_and_must_give_the_new_type() -> None:
    mapping = check_map([["lots", 500]], ValueType.INTEGER)
    assert convert('"lots"', ValueType.INTEGER, mapping) == "500"
    with pytest.raises(ValidationError) as caught:
        check_map([["lots", "many"]], ValueType.INTEGER)
    assert caught.value.field == "map[0][1]"
    with pytest.raises(ValidationError):
        check_map([["lots"]], ValueType.INTEGER)


@given(st.integers(-(2**53), 2**53))
def test_an_integer_survives_a_round_trip_through_string(number: int) -> None:
    text = convert(json.dumps(number), ValueType.STRING, {})
    assert text is not None and convert(text, ValueType.INTEGER, {}) == json.dumps(number)


def _stored_text(size: int) -> st.SearchStrategy[str]:
    """Text a value may hold: no NUL, which every write refuses (``check_unicode``)."""
    return st.text(max_size=size).filter(lambda text: "\x00" not in text)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                           | _stored_text(8) | st.integers().map(str),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_stored_text(3), inner,
                                                                                         max_size=3), max_leaves=5)
"""Values a store may hold, as a retype finds them."""


@given(st.lists(JSON_VALUES, max_size=6), st.sampled_from(list(ValueType)), st.booleans())
def test_converting_values_together_gives_each_ones_conversion(values: list[object], value_type: ValueType,
                                                               mapped: bool) -> None:
    texts = [json.dumps(value, sort_keys=True, separators=(",", ":")) for value in values]
    mapping = {texts[0]: '"mapped"' if value_type is ValueType.STRING else "7"} if mapped and texts else {}
    each = {text: convert(text, value_type, mapping) for text in texts}
    together = convert_all(texts, value_type, mapping)
    if any(found is None for found in each.values()):
        assert together is None
    else:
        assert together == each


NEAR_COLLISIONS = st.sampled_from([42, 42.0, "42", "42.0", "4.2e1", " 42", 4.5, "4.5", "4.50", True, "true",
                                    "2026-07-15", "2026-07-15T00:00:00Z", "2026-07-15T00:00:00+00:00",
                                    [42], ["42"], "lots"])


@given(st.lists(JSON_VALUES | NEAR_COLLISIONS, max_size=10), st.sampled_from(list(ValueType)),
       st.lists(st.tuples(NEAR_COLLISIONS, st.sampled_from([7, 8])), max_size=3))
def test_values_a_screen_passes_each_convert_to_a_value_of_their_own(
    values: list[object], value_type: ValueType, pairs: list[tuple[object, int]],
) -> None:
    """What lets a read convert one version of a key alone: whatever else the key holds,
    a value that passes converts, changes, and no other passing value converts to it."""
    texts = {json.dumps(value, sort_keys=True, separators=(",", ":")) for value in values}
    mapping = {canonical_json(old): canonical_json(new if value_type is not ValueType.STRING else str(new))
               for old, new in pairs} if value_type in (ValueType.INTEGER, ValueType.STRING) else {}
    screen = Screen.of(value_type, mapping)
    passed = sorted(text for text in texts if screen.passes(text))
    converted = [convert(text, value_type, mapping) for text in passed]
    assert all(new is not None and new != old for old, new in zip(passed, converted, strict=True))
    assert len(set(converted)) == len(passed)


@pytest.mark.parametrize(("value", "value_type", "mapping", "passes"), [
    ("42", ValueType.INTEGER, {}, True), ("42.0", ValueType.INTEGER, {}, False), (42, ValueType.INTEGER, {}, False),
    ("4.5", ValueType.NUMBER, {}, True), ("4.50", ValueType.NUMBER, {}, False), (7, ValueType.STRING, {}, True),
    ("2026-07-15", ValueType.DATETIME, {}, True), ("2026-07-15T00:00:00Z", ValueType.DATE, {}, True),
    ({"a": 1}, ValueType.ARRAY, {}, True), ("lots", ValueType.INTEGER, {}, False),
    ("lots", ValueType.INTEGER, {'"lots"': "500"}, True),
    ("lots", ValueType.INTEGER, {'"lots"': "500", '"many"': "500"}, False),
    ("500", ValueType.INTEGER, {'"lots"': "500"}, False),
])
def test_a_screen_passes_the_canonical_source_of_each_conversion(
    value: object, value_type: ValueType, mapping: dict[str, str], passes: bool,
) -> None:
    assert Screen.of(value_type, mapping).passes(canonical_json(value)) is passes


def _budgets(memory: Memory, clock: ManualClock) -> None:
    memory.declare("t", "budget", "string")
    memory.add_episode("t", "e1", T1, "budget 100")
    memory.add_episode("t", "e2", T2, "budget lots")
    memory.write("t", "p1", "budget", "100", T1, "e1")
    memory.write("t", "p1", "budget", "lots", T2, "e2")
    clock.advance(60)


def test_erasure_reaches_a_value_a_retype_set_aside(memory: Memory, clock: ManualClock) -> None:
    _budgets(memory, clock)
    before = clock.now
    clock.advance(60)
    memory.retype("t", "budget", "integer", quarantine=True)
    assert [q.value for q in memory.quarantined("t", "budget")] == ["lots"]
    memory.forget_episode("t", "e2")
    assert memory.quarantined("t") == []
    assert [a.value for a in memory.history("t", "p1", "budget")] == [100]
    assert [a.value for a in memory.history("t", "p1", "budget", known_at=before)] == ["100"]
    assert "lots" not in json.dumps([a.value for a in memory.versions("t", "p1", "budget")])


def test_erasure_after_a_rename_keeps_the_history_before_it(memory: Memory, clock: ManualClock) -> None:
    _budgets(memory, clock)
    before = clock.now
    clock.advance(60)
    memory.rename_attribute("t", "budget", "spend")
    memory.forget_episode("t", "e1")
    assert [a.value for a in memory.history("t", "p1", "spend")] == ["lots"]
    assert [a.value for a in memory.history("t", "p1", "budget", known_at=before)] == ["lots"]
    assert memory.get("t", "p1", "spend", at=T1) is None


def test_a_refused_step_changes_nothing(memory: Memory, clock: ManualClock) -> None:
    _budgets(memory, clock)
    with pytest.raises(ValidationError) as caught:
        memory.retype("t", "budget", "integer")
    assert "lots" in caught.value.message
    with pytest.raises(NotFoundError):
        memory.rename_attribute("t", "nothing", "else")
    memory.declare("t", "spend", "integer")
    with pytest.raises(ConflictError):
        memory.rename_attribute("t", "budget", "spend")
    with pytest.raises(ValidationError):
        memory.retype("t", "budget", "integer", map=[["lots", "x"]])
    assert memory.schema_history("t") == []
    assert memory.get("t", "p1", "budget").value == "lots"  # type: ignore[union-attr]


def test_a_rename_merges_into_a_key_and_refuses_two_values_at_one_start(memory: Memory, clock: ManualClock) -> None:
    memory.add_episode("t", "e1", T1, "x")
    memory.write("t", "ann", "city", "Rome", T1, "e1")
    memory.write("t", "ann", "town", "Oslo", T2, "e1")
    memory.write("t", "bob", "town", "Lima", T1, "e1")
    memory.write("t", "cid", "town", "Pisa", T1, "e1")
    memory.write("t", "cid", "city", "Bari", T1, "e1")
    clock.advance(60)
    with pytest.raises(ConflictError):  # cid would hold Pisa and Bari from T1
        memory.rename_attribute("t", "town", "city")
    memory.forget_subject("t", "cid")
    clock.advance(60)
    change = memory.rename_attribute("t", "town", "city", decided_by="ops")
    assert (change.kind, change.decided_by, change.detail["to"]) == ("rename", "ops", "city")
    assert memory.get("t", "bob", "city").value == "Lima"  # type: ignore[union-attr]
    assert [a.value for a in memory.history("t", "ann", "town")] == ["Rome", "Oslo"]
    assert [a.value for a in memory.history("t", "ann", "town", known_at=change.recorded_at)] == ["Rome", "Oslo"]


def test_a_rename_by_another_connection_is_seen_by_the_next_read(tmp_path: Path) -> None:
    """SQLite remembers that a tenant never renamed an attribute; another connection's
    rename must reach this one's next read all the same."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with Memory(url) as reader, Memory(url) as writer:
        writer.add_episode("t", "e1", T1, "x")
        writer.write("t", "ann", "town", "Oslo", T1, "e1")
        assert reader.get("t", "ann", "city") is None  # remembered: no renames in the tenant
        writer.rename_attribute("t", "town", "city")
        assert reader.get("t", "ann", "city").value == "Oslo"  # type: ignore[union-attr]
        assert reader.get("t", "ann", "town").value == "Oslo"  # type: ignore[union-attr]


@given(st.one_of(st.integers(-(10**30), 10**30).map(str), st.text(alphabet="-0123456789. e+", max_size=8),
                 st.sampled_from(["-0", "0", "00", "-", "", "١٢", "12 "])))
def test_a_string_converts_to_a_number_as_the_parser_reads_it(text: str) -> None:
    """The quick path for a string holding an integer agrees with parsing its JSON."""
    for value_type in (ValueType.INTEGER, ValueType.NUMBER):
        found = convert(json.dumps(text), value_type, {})
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if not isinstance(parsed, (int, float)) or isinstance(parsed, bool) or text.strip() != text:
            assert found is None
        elif isinstance(parsed, float) and not math.isfinite(parsed):
            assert found is None  # past what a JSON number sgam stores can hold
        elif value_type is ValueType.INTEGER and not float(parsed).is_integer():
            assert found is None
        else:
            assert found is not None and json.loads(found) == parsed
