"""Properties of the two leaf modules every operation relies on: JSON value equality
and timestamps. Whatever the input, the answer is a value or a ValidationError."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from sgam import ValidationError
from sgam._core.time import from_micros, parse_timestamp, to_micros
from sgam._core.values import canonical_json, check_name, check_tenant, load_value

storable = st.characters(codec="utf-8", exclude_characters="\x00")  # NUL is refused in every string (tested below)
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(storable, max_size=8),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(storable, max_size=4), inner, max_size=4)),
    max_leaves=12,
)
offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every object's keys in another order and integral
    numbers written as floats where that is exact."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53:
        return float(value)
    return value


@given(json_values, st.randoms(use_true_random=False))
def test_equal_json_values_have_one_canonical_text(value: Any, rng: random.Random) -> None:
    text = canonical_json(value)
    assert canonical_json(shuffled(value, rng)) == text
    assert canonical_json(load_value(text)) == text
    assert canonical_json(json.loads(json.dumps(value))) == text


@given(st.text(storable) | json_values)
def test_a_stored_value_reads_back_as_the_parser_reads_it(value: Any) -> None:
    text = canonical_json(value)
    assert load_value(text) == json.loads(text)


@given(st.text(storable, max_size=8), st.text(storable, max_size=8), st.booleans())
def test_a_nul_anywhere_in_a_value_is_refused(before: str, after: str, as_key: bool) -> None:
    """PostgreSQL cannot store NUL (SQLite can): both refuse it, naming where it is."""
    text = f"{before}\x00{after}"
    value = {"a": [{text: 1} if as_key else text]}
    try:
        canonical_json(value)
    except ValidationError as exc:
        assert exc.field == "value.a[0]"
    else:
        raise AssertionError(f"accepted {value!r}")


texts_with_surrogates = st.lists(
    st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=40).map("".join)


@given(texts_with_surrogates, st.integers(min_value=2, max_value=120))
@example("\x00", 8)
def test_a_string_value_is_its_json_text_within_the_byte_limit(text: str, limit: int) -> None:
    """Strings take a shorter path than other values; it must agree with the general rule:
    the JSON text if it fits in ``limit`` bytes, is valid Unicode and holds no NUL (which
    PostgreSQL cannot store), else an error."""
    try:
        expected: str | None = json.dumps(text, ensure_ascii=False)
        fits = len(expected.encode()) <= limit and "\x00" not in text
    except UnicodeEncodeError:
        expected, fits = None, False
    try:
        found: str | None = canonical_json(text, limit=limit)
    except ValidationError:
        found = None
    assert found == (expected if fits else None)
    wrapped = canonical_json([text], limit=limit + 2) if fits else None
    assert wrapped is None or wrapped == f"[{found}]"


@given(st.floats(allow_nan=False, allow_infinity=False).filter(float.is_integer))
def test_an_integral_float_is_the_same_json_value_as_the_integer(number: float) -> None:
    assert canonical_json(number) == canonical_json(int(number))


@given(st.booleans())
def test_booleans_are_never_numbers(flag: bool) -> None:
    assert canonical_json(flag) != canonical_json(int(flag))
    assert canonical_json([flag]) != canonical_json([float(flag)])


@given(st.datetimes(timezones=offsets))
def test_aware_datetimes_parse_to_the_same_instant_or_fail_cleanly(moment: datetime) -> None:
    for spelled in (moment, moment.isoformat()):
        try:
            parsed = parse_timestamp(spelled, "at")
        except ValidationError as exc:
            assert exc.field == "at" and "years 1-9999" in exc.rule
            continue
        assert parsed == moment and parsed.tzinfo is UTC or parsed.utcoffset() == timedelta(0)
        assert from_micros(to_micros(parsed)) == parsed


@given(st.datetimes())
def test_naive_datetimes_are_refused(moment: datetime) -> None:
    for spelled in (moment, moment.isoformat()):
        try:
            parse_timestamp(spelled, "valid_from")
        except ValidationError as exc:
            assert exc.field == "valid_from"
        else:
            raise AssertionError(f"accepted a naive timestamp {spelled!r}")


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0xE000), max_size=300))
def test_names_are_accepted_or_refused_as_validation(text: str) -> None:
    try:
        assert check_name(text, "subject") == text
    except ValidationError as exc:
        assert exc.field == "subject"
    else:
        text.encode()
        assert text.strip() and len(text) <= 256


@given(st.text(max_size=40))
def test_any_string_is_a_timestamp_or_a_validation_error(text: str) -> None:
    try:
        parsed = parse_timestamp(text, "at")
    except ValidationError:
        return
    assert parsed.utcoffset() == timedelta(0)


@given(st.text(alphabet=st.characters(categories=["Nd"]), min_size=4, max_size=4))
def test_only_ascii_digits_make_a_year(year: str) -> None:
    try:
        parsed = parse_timestamp(f"{year}-06-01T00:00:00Z", "at")
    except ValidationError:
        assert not year.isascii() or year == "0000"
    else:
        assert year.isascii() and parsed.year == int(year)


controls = st.characters(min_codepoint=0, max_codepoint=0x9F).filter(lambda c: not c.isprintable() or c == "\x7f")
valid_tenants = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,60}", fullmatch=True)
valid_names = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), min_size=1,
                      max_size=40).filter(str.strip)
valid_timestamps = st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 1, 1),
                                timezones=st.just(UTC)).map(lambda m: m.isoformat().replace("+00:00", "Z"))


def _spoiled(valid: str, control: str, where: int) -> str:
    """``valid`` with a control character at its end (a trailing newline above all) or inside it."""
    return valid + control if where == 0 else valid[:where % len(valid)] + control + valid[where % len(valid):]


@given(valid_tenants, controls, st.integers(min_value=0, max_value=60))
def test_a_tenant_with_a_control_character_or_a_final_newline_is_refused(tenant: str, control: str,
                                                                         where: int) -> None:
    assert check_tenant(tenant) == tenant
    for spoiled in (tenant + "\n", _spoiled(tenant, control, where)):
        try:
            check_tenant(spoiled)
        except ValidationError as exc:
            assert exc.field == "tenant"
        else:
            raise AssertionError(f"accepted the tenant {spoiled!r}")


@given(valid_names, controls, st.integers(min_value=0, max_value=40))
def test_a_name_with_a_control_character_or_a_final_newline_is_refused(name: str, control: str, where: int) -> None:
    assert check_name(name, "subject") == name
    for spoiled in (name + "\n", _spoiled(name, control, where)):
        try:
            check_name(spoiled, "subject")
        except ValidationError as exc:
            assert exc.field == "subject" and "control characters" in exc.message
        else:
            raise AssertionError(f"accepted the name {spoiled!r}")


@given(valid_timestamps, controls, st.integers(min_value=0, max_value=30))
def test_a_timestamp_with_a_control_character_or_a_final_newline_is_refused(text: str, control: str,
                                                                            where: int) -> None:
    assert parse_timestamp(text, "at").utcoffset() == timedelta(0)
    for spoiled in (text + "\n", text + "\r\n", _spoiled(text, control, where), f" {text}", f"{text} "):
        try:
            parse_timestamp(spoiled, "at")
        except ValidationError as exc:
            assert exc.field == "at"
        else:
            raise AssertionError(f"accepted the timestamp {spoiled!r}")
