"""``search(filter=...)`` as LangGraph's reference store evaluates it: plain values and
nested objects match by equality, ``$eq $ne $gt $gte $lt $lte`` compare (the ordering
ones numerically)."""

from __future__ import annotations

from typing import Any

from .._core.errors import ValidationError

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def check_filter(flt: object) -> dict[str, Any] | None:
    """Refuse what cannot be evaluated before anything is read."""
    if flt is None:
        return None
    if not isinstance(flt, dict) or not all(isinstance(key, str) for key in flt):
        raise ValidationError("filter", flt, "must be a mapping of field names to values")
    _check_operators(flt, "filter")
    return flt


def _check_operators(value: Any, path: str) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str) and key.startswith("$"):
                if key not in OPERATORS:
                    raise ValidationError(f"{path}.{key}", inner,
                                          f"unknown operator; use one of {', '.join(OPERATORS)}")
                if key in ("$gt", "$gte", "$lt", "$lte") and not _number(inner):
                    raise ValidationError(f"{path}.{key}", inner, "must be a number")
            else:
                _check_operators(inner, f"{path}.{key}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def matches_filter(value: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    return not flt or all(_matches(value.get(key), wanted) for key, wanted in flt.items())


def _matches(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(key.startswith("$") for key in wanted):
            return all(_compare(actual, op, operand) for op, operand in wanted.items())
        return isinstance(actual, dict) and all(_matches(actual.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(wanted)
                and all(_matches(a, w) for a, w in zip(actual, wanted, strict=True)))
    return bool(actual == wanted)


def _compare(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(actual == operand)
    if op == "$ne":
        return bool(actual != operand)
    try:
        number = float(actual)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field is never in a numeric range
    bound = float(operand)
    if op == "$gt":
        return number > bound
    if op == "$gte":
        return number >= bound
    if op == "$lt":
        return number < bound
    return number <= bound
