"""Value conversions of a ``retype`` (replay format 1, "Schema evolution"): a ``map`` of
pairs first, then a value already of the new type as it is, then the first built-in
conversion that applies. Pure functions over the canonical JSON text the ledger stores,
and ``ValueConversion``, what the derivation asks of any retype's conversion."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import SgamError, ValidationError
from .rules import Operation
from .schema import ValueType, check_value_type
from .time import is_iso_date, is_rfc3339, parse_timestamp
from .values import canonical_json, check_subject

NO_CONVERSION = None


_PLAIN: dict[ValueType, Callable[[Any], bool]] = {
    ValueType.STRING: lambda v: isinstance(v, str),
    ValueType.INTEGER: lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    ValueType.NUMBER: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    ValueType.BOOLEAN: lambda v: isinstance(v, bool),
    ValueType.OBJECT: lambda v: isinstance(v, dict),
    ValueType.ARRAY: lambda v: isinstance(v, list),
}
"""The declared types ``check_value_type`` decides by the value's Python type alone,
asked without raising: a read converting a key on the fly converts every value it held."""


def _is(value: Any, value_type: ValueType) -> bool:
    plain = _PLAIN.get(value_type)
    if plain is not None:
        return value is not None and plain(value)
    try:
        check_value_type(value, value_type)
    except SgamError:
        return False
    return True


def _builtin(value: Any, value_type: ValueType) -> Any:
    """The first built-in conversion of the spec that applies, or ``NO_CONVERSION``."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if value_type is ValueType.NUMBER and number:
        return value
    if value_type is ValueType.INTEGER and number and math.isfinite(value) and float(value).is_integer():
        return int(value)
    if value_type is ValueType.STRING and (number or isinstance(value, bool)):
        return json.dumps(value)
    if value_type in (ValueType.NUMBER, ValueType.INTEGER) and isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        finite = isinstance(parsed, int) or (isinstance(parsed, float) and math.isfinite(parsed))
        if finite and not isinstance(parsed, bool) and value.strip() == value:  # "1e400" is no number sgam keeps
            if value_type is ValueType.NUMBER:
                return parsed
            if math.isfinite(parsed) and float(parsed).is_integer():
                return int(parsed)
    if value_type is ValueType.DATETIME and isinstance(value, str) and is_iso_date(value):
        return f"{value}T00:00:00Z"
    if value_type is ValueType.DATE and isinstance(value, str) and is_rfc3339(value):
        moment = parse_timestamp(value, "value")
        if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
            return moment.date().isoformat()
    if value_type is ValueType.ARRAY:
        return [value]
    return NO_CONVERSION


_NUMERIC = frozenset((ValueType.INTEGER, ValueType.NUMBER))


def convert(text: str, value_type: ValueType, mapping: dict[str, str]) -> str | None:
    """The stored value ``text`` converted to ``value_type`` (canonical JSON), or None
    when nothing converts it. ``mapping``: canonical JSON of ``old`` -> of ``new``."""
    if text in mapping:
        return mapping[text]
    if value_type in _NUMERIC and text[0] == '"':
        found = _integer_text(text)
        if found is not None:
            return found
    return _converted(text, value_type)


def convert_all(texts: Iterable[str], value_type: ValueType, mapping: dict[str, str]) -> dict[str, str] | None:
    """Each stored value converted as ``convert`` does; None as soon as one has no
    conversion. A dual read asks this of every value of a key on each read, so the test
    of the type is made once, not per value."""
    numeric = value_type in _NUMERIC
    found: dict[str, str] = {}
    for text in texts:
        new = mapping.get(text)
        if new is None and numeric and text[0] == '"':
            new = _integer_text(text)
        if new is None:
            new = _converted(text, value_type)
            if new is None:
                return None
        found[text] = new
    return found


def _integer_text(text: str) -> str | None:
    """A JSON string holding exactly an integer, as the built-in conversion gives it."""
    content = text[1:-1]
    digits = content.removeprefix("-")
    if digits.isascii() and digits.isdigit() and (content == "0" or digits[0] != "0"):
        return content
    return None


def _converted(text: str, value_type: ValueType) -> str | None:
    value = json.loads(text)
    if value_type is ValueType.SUBJECT:
        return _subject_id(value)
    if _is(value, value_type):
        return text
    converted = _builtin(value, value_type)
    if converted is NO_CONVERSION or not _is(converted, value_type):
        return None
    if type(converted) is int:
        return str(converted)  # what canonical_json gives an integer, without its checks
    return canonical_json(converted)


def _subject_id(value: Any) -> str | None:
    """A string as a relation stores it, the normalised id a write would store
    (``" COGS "`` -> ``"cogs"``), so reads, consent and erasure find it; None when no
    write would take it as a subject id."""
    try:
        return canonical_json(check_subject(value, "value")) if isinstance(value, str) else None
    except SgamError:
        return None


def check_map(pairs: object, value_type: ValueType, field: str = "map") -> dict[str, str]:
    """A ``map`` (a list of ``[old, new]`` pairs, each ``new`` of the new type) as
    canonical JSON old -> new; a ``ValidationError`` naming the pair otherwise."""
    if pairs is None:
        return {}
    if not isinstance(pairs, list):
        raise ValidationError(field, pairs, "must be a list of [old, new] pairs")
    found: dict[str, str] = {}
    for index, pair in enumerate(pairs):
        where = f"{field}[{index}]"
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValidationError(where, pair, "must be a pair [old, new]")
        old, new = pair
        if new is None or not _is(new, value_type):
            raise ValidationError(f"{where}[1]", new, f"must be of the new type {value_type.value}")
        key = canonical_json(old, f"{where}[0]")
        if key in found and found[key] != canonical_json(new):
            raise ValidationError(f"{where}[0]", old, "is mapped twice, to different values")
        found[key] = canonical_json(check_subject(new, f"{where}[1]") if value_type is ValueType.SUBJECT else new,
                                    f"{where}[1]")
    return found


class ValueConversion(Protocol):
    """How a ``retype`` step converts each value it reaches: the built-in conversions of
    a value type (``TypeConversion``), or what a memory type's conversion function made
    of each operation (``RecordedConversion``, and the function itself while the step
    is taken)."""

    def reaches(self, op: Operation) -> bool:
        """Whether the step converts ``op`` (an operation of the step's attribute)."""
        ...

    def __call__(self, op: Operation, current: str) -> str | None:
        """``current`` (canonical JSON) converted, or None: set aside."""
        ...

    def refused(self, attribute: str, unconverted: Sequence[str]) -> SgamError:
        """The error of a step that would set ``unconverted`` aside without ``quarantine``."""
        ...


@dataclass(frozen=True, slots=True)
class TypeConversion:
    """A retype to a value type: its ``map`` first, then the built-in conversions."""

    value_type: ValueType
    mapping: dict[str, str]

    @classmethod
    def of(cls, detail: dict[str, Any]) -> TypeConversion:
        return cls(ValueType(detail["type"]), {str(old): str(new) for old, new in detail.get("map", [])})

    def reaches(self, op: Operation) -> bool:
        return True

    def __call__(self, op: Operation, current: str) -> str | None:
        return convert(current, self.value_type, self.mapping)

    def refused(self, attribute: str, unconverted: Sequence[str]) -> SgamError:
        shown = ", ".join(sorted(set(unconverted))[:3])
        return ValidationError(
            "type", self.value_type.value,
            f"{len(unconverted)} value(s) of {attribute!r} have no conversion to {self.value_type.value} "
            f"(e.g. {shown}): list them in map, or set quarantine")


def _stored_preimage(new: str, value_type: ValueType) -> str | None:
    """The one stored text a built-in conversion is trusted to have made ``new`` from."""
    if value_type in _NUMERIC:
        return f'"{new}"'  # "42" from the string "42"; 42.0 or "42.0" are screened out
    if value_type is ValueType.STRING:
        content = json.loads(new)
        return content if isinstance(content, str) else None  # "42" from 42, "true" from true
    if value_type is ValueType.DATETIME and new.endswith('T00:00:00Z"'):
        return new.removesuffix('T00:00:00Z"') + '"'
    if value_type is ValueType.DATE:
        return new[:-1] + 'T00:00:00Z"'
    if value_type is ValueType.ARRAY:
        items = json.loads(new)
        return canonical_json(items[0]) if isinstance(items, list) and len(items) == 1 else None
    return None


@dataclass(frozen=True, slots=True)
class Screen:
    """Which stored values a read may convert one at a time (``ledger/screening.py``).

    A read converting a key on the fly from one version must know that the key's other
    values do not change the answer: each converts (none is set aside), none stays as it
    is (a key left whole is not retired at the step), and no two convert to one value (a
    later one would corroborate). Only the last needs the key's values together; it is
    ruled out per value by naming, for each converted value, the one stored text it may
    come from (a function of the converted value: ``sources`` for a map's targets,
    ``_stored_preimage`` for the built-in conversions'): a value passes only if it is
    that text. Two passing values of one key then convert to different values,
    whatever else the key holds. A map's target has its one key as preimage (none when
    two keys share it); a built-in conversion's has its canonical source.
    Values that do not pass are not wrong, only read the long way."""

    value_type: ValueType
    mapping: dict[str, str]
    sources: dict[str, str | None]

    @classmethod
    def of(cls, value_type: ValueType, mapping: dict[str, str]) -> Screen:
        sources: dict[str, str | None] = {}
        for old, new in mapping.items():
            sources[new] = old if new not in sources else None
        return cls(value_type, mapping, sources)

    def passes(self, text: str) -> bool:
        new = convert(text, self.value_type, self.mapping)
        if new is None or new == text:
            return False
        source = self.sources[new] if new in self.sources else _stored_preimage(new, self.value_type)
        return source == text
