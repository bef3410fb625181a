"""Migration files: the schema steps of the replay format (``rename``, ``retype``,
``schema``) in a YAML file that ``plan`` runs and rolls back, reporting what each step
would convert, set aside or refuse, and ``apply`` runs in one transaction. The whole file
is checked before anything runs: an unknown step or field is refused with its place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .._core.errors import SgamError, ValidationError, bounded_repr
from .._core.schema import AttributeSchema, parse_cardinality, parse_value_type
from .._core.values import check_name, load_value
from ..ledger import migrations
from ..ledger.backfill import BATCH, finish
from ..ledger.families import renamed_family
from ..store import WriteTransaction
from .loader import MAX_FILE_DEPTH, _StringTimestampLoader, size_problem

if TYPE_CHECKING:
    from ..memory.facade import Memory
    from ..memory.schema import Progress

STEPS: dict[str, tuple[set[str], set[str]]] = {
    "rename": ({"attribute", "to"}, set()),
    "retype": ({"attribute", "type"}, {"map", "quarantine"}),
    "schema": ({"attribute", "type"}, {"memory_type", "sensitive", "description", "cardinality"}),
}
MAX_STEPS = 1000
EXAMPLES = 3


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    operation: str
    args: dict[str, Any]


def load(path: Path) -> list[Step]:
    """The file's steps, each checked for shape; a ``ValidationError`` names the first
    bad one (``steps[2].retype.map``) and nothing runs."""
    try:  # YAML 1.2 scalars, timestamps kept as text, as in scenario files
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_StringTimestampLoader)  # noqa: S506
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError("file", str(path), f"cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        raise ValidationError("file", str(path), f"is not valid YAML ({exc})") from None
    except RecursionError:
        raise ValidationError("file", str(path), f"is nested deeper than {MAX_FILE_DEPTH} levels") from None
    problem = size_problem(data)
    if problem is not None:
        raise ValidationError("file", str(path), f"is {problem}" if problem.startswith("nested") else problem)
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ValidationError("file", str(path), "must be a mapping with a list of steps")
    unknown = set(data) - {"name", "description", "steps"}
    if unknown:
        raise ValidationError(min(map(str, unknown)), str(path), "unknown field of a migration file")
    if len(data["steps"]) > MAX_STEPS:
        raise ValidationError("steps", f"<{len(data['steps'])} steps>", f"at most {MAX_STEPS}")
    return [_step(number, raw) for number, raw in enumerate(data["steps"], start=1)]


def _step(number: int, raw: object) -> Step:
    where = f"steps[{number}]"
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ValidationError(where, raw, "must be a mapping with one step: rename, retype or schema")
    operation, args = next(iter(raw.items()))
    if operation not in STEPS:
        raise ValidationError(where, bounded_repr(operation), "is not a step of a migration: rename, retype or schema")
    if not isinstance(args, dict):
        raise ValidationError(f"{where}.{operation}", args, "takes a mapping of fields")
    required, optional = STEPS[operation]
    missing = required - set(args)
    if missing:
        raise ValidationError(f"{where}.{operation}.{min(missing)}", None, "is required")
    extra = set(args) - required - optional
    if extra:
        raise ValidationError(f"{where}.{operation}.{min(map(str, extra))}", args, "is not a field of this step")
    try:
        check_name(args["attribute"], "attribute")
        if operation == "rename":
            check_name(args["to"], "to")
        else:
            parse_value_type(args["type"])
        if "cardinality" in args:
            parse_cardinality(args["cardinality"])
    except ValidationError as exc:
        raise ValidationError(f"{where}.{operation}.{exc.field}", exc.value, exc.rule) from None
    return Step(number, operation, args)


def _run(
    memory: Memory, txn: WriteTransaction, step: Step, decided_by: str | None, origin: str,
    backfill: bool | None = None,
) -> None:
    a, now = step.args, memory.ledger.now()
    if step.operation == "rename":
        migrations.rename(txn, a["attribute"], a["to"], now, decided_by, origin, backfill=backfill)
    elif step.operation == "retype":
        migrations.retype(txn, a["attribute"], parse_value_type(a["type"]), a.get("map"),
                          a.get("quarantine", False), now, decided_by, origin, backfill=backfill)
    else:
        schema = AttributeSchema(check_name(a["attribute"], "attribute"), parse_value_type(a["type"]),
                                 a.get("memory_type"), bool(a.get("sensitive", False)), a.get("description"))
        cardinality = None if a.get("cardinality") is None else parse_cardinality(a["cardinality"])
        memory.ledger.writes.declare(txn, schema, cardinality, decided_by, origin, backfill=backfill)


def _report(txn: WriteTransaction, step: Step, outcome: str) -> dict[str, Any]:
    attribute = migrations.current_name(txn, str(step.args["attribute"]))
    family = renamed_family(txn.ledger_changes(), [attribute])
    set_aside = txn.quarantined(attribute)
    return {"step": step.number, "operation": step.operation, "attribute": attribute,
            "operations": txn.count_family_operations(sorted(family)), "quarantined": len(set_aside),
            "examples": [load_value(q.value) for q in set_aside[:EXAMPLES]], "outcome": outcome}


class _Planned(Exception):
    """Internal: the plan is made; roll its transaction back."""

    def __init__(self, report: list[dict[str, Any]]) -> None:
        super().__init__("planned")
        self.report = report


def plan(memory: Memory, tenant: str, path: Path) -> list[dict[str, Any]]:
    """Run the file's steps in a transaction that is rolled back: per step, how many
    operations it reaches, what it sets aside (with examples), and its outcome. A
    refused step ends the plan: the steps after it are reported as not run."""
    steps = load(path)

    def work(txn: WriteTransaction) -> None:
        report: list[dict[str, Any]] = []
        for index, step in enumerate(steps):
            try:
                _run(memory, txn, step, None, path.name)
            except SgamError as exc:
                report.append({**_report(txn, step, f"{exc.kind}: {exc.message}"), "quarantined": 0,
                               "examples": []})
                report += [{"step": later.number, "operation": later.operation,
                            "attribute": str(later.args["attribute"]), "operations": 0, "quarantined": 0,
                            "examples": [], "outcome": "not run: an earlier step is refused"}
                           for later in steps[index + 1:]]
                raise _Planned(report) from None
            finish(txn, memory.ledger.now())  # a backfilled step: its batches here too, rolled back with it
            report.append(_report(txn, step, "ok"))
        raise _Planned(report)

    try:
        memory.ledger.run_write(tenant, work, "migration plan")
    except _Planned as planned:
        return planned.report
    raise AssertionError("unreachable: a plan always rolls back")  # pragma: no cover


def apply(
    memory: Memory, tenant: str, path: Path, decided_by: str | None = None, *, progress: Progress | None = None,
    batch: int = BATCH, backfill: bool | None = None,
) -> list[dict[str, Any]]:
    """Run every step of the file in one transaction (all or none); each step's record
    names ``decided_by`` and the file. Then run the backfills of steps on large
    attributes, ``batch`` subjects per transaction (``progress`` after each). Applied
    again while a backfill of this file's steps is unfinished (it was interrupted), it
    records nothing and resumes it. ``backfill``: as ``Memory.retype``'s."""
    steps = load(path)
    recorded = _unfinished_from(memory, tenant, path.name)
    if recorded:
        memory.run_backfill(tenant, batch=batch, progress=progress)
        return _reported(memory, tenant, steps, "resumed")

    def work(txn: WriteTransaction) -> list[dict[str, Any]]:
        report = []
        for step in steps:
            try:
                _run(memory, txn, step, decided_by, path.name, backfill)
            except SgamError as exc:
                exc.message = f"steps[{step.number}] ({step.operation}): {exc.message}"
                exc.args = (exc.message,)
                raise
            report.append(_report(txn, step, "applied"))
        return report

    result: list[dict[str, Any]] = memory.ledger.run_write(tenant, work, "migration apply")
    if any(not b.finished for b in memory.backfills(tenant)):
        memory.run_backfill(tenant, batch=batch, progress=progress)
        return _reported(memory, tenant, steps, "applied")
    return result


def _unfinished_from(memory: Memory, tenant: str, origin: str) -> list[int]:
    """The steps recorded from ``origin`` whose backfill is not finished."""
    unfinished = {b.step for b in memory.backfills(tenant) if not b.finished}
    return [c.seq for c in memory.schema_history(tenant) if c.origin == origin and c.seq in unfinished]


def _reported(memory: Memory, tenant: str, steps: list[Step], outcome: str) -> list[dict[str, Any]]:
    """Each step's report read after its backfill (what it set aside is known then)."""
    def work(txn: WriteTransaction) -> list[dict[str, Any]]:
        return [_report(txn, step, outcome) for step in steps]

    return memory.ledger.run_write(tenant, work, "migration report")
