"""Read scenario files and check their shape before anything runs.

Shape problems (not YAML, unknown operation, missing field, a clock that moves back) make
the whole file unusable: ``ScenarioFileError`` names the file and the step (first is 1).
Problems of *values* (a naive timestamp, a value of the wrong type) are not shape
problems: they reach the store, which answers with an error a step may expect.

YAML timestamps and dates are read as the strings they were written as, so
``value: 2026-07-15`` is the string ``"2026-07-15"`` and a zone-less timestamp stays
detectable instead of being silently converted.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .._core.errors import SgamError, ValidationError, bounded_repr
from .._core.time import parse_timestamp

OPERATION_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # operation: (required fields, optional fields)
    "episode": ({"id", "at", "text"}, {"speaker", "kind", "session", "metadata", "retention", "derived_from"}),
    "schema": ({"attribute", "type"}, {"memory_type", "sensitive", "description", "cardinality"}),
    "write": ({"subject", "attribute", "value", "valid_from", "source"},
              {"memory_type", "confidence", "expires_at", "purpose"}),
    "retract": ({"subject", "attribute", "at", "source"}, {"purpose", "value"}),
    "correct": ({"subject", "attribute", "valid_from", "value", "source"}, {"confidence", "purpose"}),
    "forget": (set(), {"subject", "episode"}),
    "retention": ({"class", "ttl"}, {"on_expiry"}),
    "consent": ({"subject", "granted"}, {"purpose"}),
    "alias": ({"name", "subject"}, set()),
    "unalias": ({"name"}, set()),
    "rename": ({"attribute", "to"}, set()),
    "retype": ({"attribute", "type"}, {"map", "quarantine"}),
    "expect_quarantined": ({"attribute", "values"}, set()),
    "expect": ({"subject", "attribute"},
               {"value", "values", "at", "known_at", "source", "valid_from", "valid_to", "purpose"}),
    "expect_history": ({"subject", "attribute", "values"}, {"known_at", "purpose"}),
    "expect_episode": ({"id", "exists"}, set()),
    "expect_linked": ({"attribute", "to", "subjects"}, {"at", "known_at"}),
    "expect_reachable": ({"from", "attributes", "depth", "subjects"}, {"at", "known_at"}),
    "clock": (set(), set()),
    "model_reply": (set(), set()),
    "extract": ({"episode"}, {"min_confidence", "promote_after", "hold_inferred", "confirm_sensitive",
                             "confirm_ambiguous"}),
    "confirm": ({"subject", "attribute"}, {"value"}),
    "reject": ({"subject", "attribute"}, {"value"}),
}
STEP_MODIFIERS = {"tenant", "error"}
MAX_FILE_DEPTH = 200
"""How deep a scenario file may nest: its own levels plus a value as deep as a value may
be (100), with room to spare so a too-deep value is a step's ``validation`` error."""
MAX_FILE_NODES = 1_000_000
"""How many values (YAML aliases counted each time they are used) a file may hold."""
ERROR_KINDS = {"conflict", "validation", "denied", "not_found"}


class ScenarioFileError(SgamError):
    """A scenario file that cannot be used; exit status 2."""

    kind = "scenario_file"

    def __init__(self, path: str, message: str, step: int | None = None) -> None:
        where = f"{path}, step {step}" if step is not None else path
        super().__init__(f"{where}: {message}")
        self.path = path
        self.step = step
        self.reason = message


class _StringTimestampLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core scalars, strings for timestamps, no duplicate keys.

    PyYAML implements YAML 1.1, whose implicit types surprise scenario authors and
    disagree with JSON: ``no``/``on``/``NO`` (Norway) become booleans, ``1:30`` the
    integer 90, ``010`` the integer 8, and JSON's ``1e3`` a string. Here booleans are
    only true/false, numbers follow YAML 1.2 (a superset of JSON's), and dates and
    timestamps stay the strings they were written as. A key repeated in one mapping
    (two ``write`` keys in a step, two ``value`` fields) is an error, not "last wins".
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                continue  # SafeLoader reports unhashable keys itself
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark, f"duplicate key {bounded_repr(key)}",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_YAML12 = {
    "tag:yaml.org,2002:bool": re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    "tag:yaml.org,2002:int": re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    "tag:yaml.org,2002:float": re.compile(
        r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
}
_StringTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, _YAML12.get(tag, regexp)) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    try:
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text)  # decimal, leading zeros and all: YAML 1.2 has no implicit octal
    except ValueError:  # more digits than Python converts (4300)
        raise yaml.constructor.ConstructorError(
            None, None, f"integer with {len(text)} digits is too large", node.start_mark
        ) from None


_StringTimestampLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    operation: str
    args: Any
    tenant: str
    error: str | None


@dataclass(frozen=True, slots=True)
class Scenario:
    path: str
    name: str
    tenant: str
    steps: list[Step] = field(default_factory=list)


def load_scenario(path: Path) -> Scenario:
    shown = str(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_StringTimestampLoader)  # noqa: S506
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioFileError(shown, f"cannot read file ({exc})") from None
    except yaml.YAMLError as exc:
        raise ScenarioFileError(shown, f"not valid YAML or JSON ({exc})") from None
    except RecursionError:
        raise ScenarioFileError(shown, f"nested deeper than {MAX_FILE_DEPTH} levels") from None
    _check_size(shown, data)
    if not isinstance(data, dict):
        raise ScenarioFileError(shown, "a scenario is a mapping with name, tenant and steps")
    for key in ("name", "tenant", "steps"):
        if key not in data:
            raise ScenarioFileError(shown, f"missing field {key!r}")
    unknown = set(data) - {"name", "tenant", "steps", "description"}
    if unknown:
        raise ScenarioFileError(shown, f"unknown field {bounded_repr(min(map(str, unknown)))}")
    if not isinstance(data["name"], str) or not isinstance(data["tenant"], str):
        raise ScenarioFileError(shown, "name and tenant must be strings")
    if not isinstance(data["steps"], list):
        raise ScenarioFileError(shown, "steps must be a list")
    steps = [_step(shown, number, raw, data["tenant"]) for number, raw in enumerate(data["steps"], start=1)]
    _check_clock(shown, steps)
    return Scenario(shown, data["name"], data["tenant"], steps)


def _check_size(path: str, data: Any) -> None:
    problem = size_problem(data)
    if problem is not None:
        raise ScenarioFileError(path, problem)


def size_problem(data: Any) -> str | None:
    """What is wrong with a file nested deeper than ``MAX_FILE_DEPTH`` or holding more
    than ``MAX_FILE_NODES`` values (None: nothing); iterative, so the check itself cannot
    overflow the stack, and bounded, so aliases that multiply a small file cannot make
    it run for ever."""
    pending: list[tuple[Any, int]] = [(data, 0)]
    for _ in range(MAX_FILE_NODES):
        if not pending:
            return None
        node, depth = pending.pop()
        if depth > MAX_FILE_DEPTH:
            return f"nested deeper than {MAX_FILE_DEPTH} levels"
        if isinstance(node, dict):
            pending.extend((item, depth + 1) for item in node.values())
        elif isinstance(node, list):
            pending.extend((item, depth + 1) for item in node)
    return f"holds more than {MAX_FILE_NODES} values" if pending else None


def _step(path: str, number: int, raw: object, tenant: str) -> Step:
    if not isinstance(raw, dict):
        raise ScenarioFileError(path, "a step is a mapping with one operation", number)
    operations = [key for key in raw if key not in STEP_MODIFIERS]
    if len(operations) != 1:
        found = ", ".join(map(str, operations)) or "none"
        raise ScenarioFileError(path, f"a step needs exactly one operation (found: {found})", number)
    operation = operations[0]
    if operation not in OPERATION_FIELDS:
        raise ScenarioFileError(path, f"unknown operation {bounded_repr(operation)}", number)
    error = raw.get("error")
    if error is not None and (not isinstance(error, str) or error not in ERROR_KINDS):
        raise ScenarioFileError(path, f"error must be one of {sorted(ERROR_KINDS)} (got {bounded_repr(error)})", number)
    step_tenant = raw.get("tenant", tenant)
    if not isinstance(step_tenant, str):
        raise ScenarioFileError(path, "tenant must be a string", number)
    args = raw[operation]
    _check_fields(path, number, operation, args)
    return Step(number, operation, args, step_tenant, error)


def _check_fields(path: str, number: int, operation: str, args: Any) -> None:
    required, optional = OPERATION_FIELDS[operation]
    if operation in ("clock", "model_reply"):
        if args is None:
            raise ScenarioFileError(path, f"{operation} needs a value", number)
        return
    if not isinstance(args, dict):
        raise ScenarioFileError(path, f"{operation} takes a mapping of fields", number)
    missing = required - set(args)
    if missing:
        raise ScenarioFileError(path, f"{operation}: missing field {sorted(missing)[0]!r}", number)
    unknown = set(args) - required - optional
    if unknown:
        raise ScenarioFileError(path, f"{operation}: unknown field {bounded_repr(min(map(str, unknown)))}", number)
    if operation == "forget" and len(set(args) & {"subject", "episode"}) != 1:
        raise ScenarioFileError(path, "forget takes exactly one of subject or episode", number)
    if operation == "expect" and len(set(args) & {"value", "values"}) != 1:
        raise ScenarioFileError(path, "expect takes exactly one of value or values (a set's members)", number)
    if operation == "expect" and "values" in args and not isinstance(args["values"], list):
        raise ScenarioFileError(path, "expect: values must be a list", number)
    if operation in ("expect_linked", "expect_reachable") and not isinstance(args["subjects"], list):
        raise ScenarioFileError(path, f"{operation}: subjects must be a list", number)
    if operation == "expect_reachable" and not isinstance(args["attributes"], list):
        raise ScenarioFileError(path, "expect_reachable: attributes must be a list", number)
    if operation == "expect_quarantined" and not isinstance(args["values"], list):
        raise ScenarioFileError(path, "expect_quarantined: values must be a list", number)
    if operation == "expect_history" and not isinstance(args["values"], list):
        raise ScenarioFileError(path, "expect_history: values must be a list", number)
    if operation == "expect_episode" and not isinstance(args["exists"], bool):
        raise ScenarioFileError(path, "expect_episode: exists must be true or false", number)


def _check_clock(path: str, steps: list[Step]) -> None:
    """The clock may stay or move forward, never back; a bad clock value is a file error."""
    last = None
    for step in steps:
        if step.operation != "clock":
            continue
        try:
            moment = parse_timestamp(step.args, "clock")
        except ValidationError as exc:
            raise ScenarioFileError(path, exc.message, step.number) from None
        if last is not None and moment < last:
            raise ScenarioFileError(path, "the clock may not move back", step.number)
        last = moment


def load_path(path: Path) -> list[Path]:
    """Scenario files under ``path`` (a file, or a folder read recursively), sorted."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())
    if not path.exists():
        raise ScenarioFileError(str(path), "no such file or folder")
    return [path]
