"""Run one scenario against a fresh ``Memory`` and collect the expectations that fail."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .._core.errors import SgamError
from .._core.time import format_timestamp, parse_timestamp
from .._core.values import MAX_QUERY_LIMIT, canonical_json, normalise_subject
from ..ledger.relations import MAX_FAN_OUT
from ..memory.facade import Memory
from .context import ReplayClock, ReplayContext, ScenarioResult, StepHandler
from .extraction_steps import EXTRACTION_STEPS
from .loader import Scenario, Step


def standard_steps() -> dict[str, StepHandler]:
    """Every operation of format 1: the ledger's (here) and the extraction path's."""
    return {**LEDGER_STEPS, **EXTRACTION_STEPS}


def run_scenario(
    scenario: Scenario, memory: Memory, steps: Mapping[str, StepHandler] | None = None
) -> ScenarioResult:
    """Run ``scenario`` on ``memory`` with ``steps`` (default ``standard_steps()``; pass
    a larger table to plug in operations of your own)."""
    clock = ReplayClock()
    memory.clock = clock
    context = ReplayContext(memory, clock, [])
    handlers = standard_steps() if steps is None else steps
    for step in scenario.steps:
        _run_step(context, handlers, step)
    return ScenarioResult(scenario.path, scenario.name, context.failures)


def _run_step(context: ReplayContext, handlers: Mapping[str, StepHandler], step: Step) -> None:
    handler = handlers.get(step.operation)
    if handler is None:
        context.fail(step, f"operation {step.operation!r}", "this installation cannot run it")
        return
    try:
        handler(context, step)
    except SgamError as exc:
        if step.error is None:
            context.fail(step, "success", f"{exc.kind}: {exc.message}")
        elif step.error != exc.kind:
            context.fail(step, {"error": step.error}, f"{exc.kind}: {exc.message}")
        return
    if step.error is not None:
        context.fail(step, {"error": step.error}, "the step succeeded")


def _clock(context: ReplayContext, step: Step) -> None:
    context.clock.fixed = parse_timestamp(step.args, "clock")


def _episode(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.add_episode(
        step.tenant, a["id"], a["at"], a["text"], speaker=a.get("speaker"),
        kind=a.get("kind", "message"), session=a.get("session"), metadata=a.get("metadata"),
        retention=a.get("retention", "default"), derived_from=a.get("derived_from"),
    )


def _schema(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.declare(
        step.tenant, a["attribute"], a["type"], memory_type=a.get("memory_type"),
        sensitive=bool(a.get("sensitive", False)), description=a.get("description"),
        cardinality=a.get("cardinality"),
    )


def _write(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.write(
        step.tenant, a["subject"], a["attribute"], a["value"], a["valid_from"], a["source"],
        memory_type=a.get("memory_type"), confidence=a.get("confidence", 1.0),
        purpose=a.get("purpose"), expires_at=a.get("expires_at"),
    )


def _retract(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.retract(step.tenant, a["subject"], a["attribute"], a["at"], a["source"], purpose=a.get("purpose"),
                           value=a.get("value"))


def _correct(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.correct(
        step.tenant, a["subject"], a["attribute"], a["valid_from"], a["value"], a["source"],
        confidence=a.get("confidence", 1.0), purpose=a.get("purpose"),
    )


def _forget(context: ReplayContext, step: Step) -> None:
    if "subject" in step.args:
        context.memory.forget_subject(step.tenant, step.args["subject"])
    else:
        context.memory.forget_episode(step.tenant, step.args["episode"])


def _retention(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.retention(step.tenant, a["class"], a["ttl"], on_expiry=a.get("on_expiry", "erase"))


def _consent(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.consent(step.tenant, a["subject"], a["granted"], purpose=a.get("purpose"))


def _alias(context: ReplayContext, step: Step) -> None:
    context.memory.alias(step.tenant, step.args["name"], step.args["subject"])


def _unalias(context: ReplayContext, step: Step) -> None:
    context.memory.unalias(step.tenant, step.args["name"])


def _rename(context: ReplayContext, step: Step) -> None:
    context.memory.rename_attribute(step.tenant, step.args["attribute"], step.args["to"])


def _retype(context: ReplayContext, step: Step) -> None:
    a = step.args
    context.memory.retype(step.tenant, a["attribute"], a["type"], map=a.get("map"),
                          quarantine=a.get("quarantine", False))


def _expect_quarantined(context: ReplayContext, step: Step) -> None:
    found = [q.value for q in context.memory.quarantined(step.tenant, step.args["attribute"])]
    if not _same_set(step.args["values"], found):
        context.fail(step, {"values": step.args["values"]}, {"values": found})


def _expect_episode(context: ReplayContext, step: Step) -> None:
    # readable as the format defines it (recorded, not erased, not expired): consent hides
    # an episode from reads but does not make it cease to exist
    exists = context.memory.ledger.episode(step.tenant, step.args["id"]) is not None
    if exists != step.args["exists"]:
        context.fail(step, {"exists": step.args["exists"]}, {"exists": exists})


def _same_value(expected: Any, actual: Any) -> bool:
    try:
        return canonical_json(expected) == canonical_json(actual)
    except SgamError:
        return False


def _same_instant(expected: Any, actual: datetime | None) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    try:
        return parse_timestamp(expected, "expected") == actual
    except SgamError:
        return False


def _expect(context: ReplayContext, step: Step) -> None:
    a = step.args
    if "values" in a:
        _expect_members(context, step)
        return
    found = context.memory.get(step.tenant, a["subject"], a["attribute"], at=a.get("at"), known_at=a.get("known_at"),
                               purpose=a.get("purpose"))
    if a["value"] is None:
        if found is not None:
            context.fail(step, {"value": None}, {"value": found.value, "source": found.source})
        return
    expected = {k: a[k] for k in ("value", "source", "valid_from", "valid_to") if k in a}
    if found is None:
        context.fail(step, expected, {"value": None})
        return
    actual = {
        "value": found.value, "source": found.source,
        "valid_from": format_timestamp(found.valid_from),
        "valid_to": None if found.valid_to is None else format_timestamp(found.valid_to),
    }
    checks = {
        "value": _same_value(a["value"], found.value),
        "source": "source" not in a or a["source"] == found.source,
        "valid_from": "valid_from" not in a or _same_instant(a["valid_from"], found.valid_from),
        "valid_to": "valid_to" not in a or _same_instant(a["valid_to"], found.valid_to),
    }
    if not all(checks.values()):
        context.fail(step, expected, {k: actual[k] for k in expected})


def _expect_members(context: ReplayContext, step: Step) -> None:
    """``expect`` with ``values``: the members of a set holding at ``at``, as a set."""
    a = step.args
    found = context.memory.members(step.tenant, a["subject"], a["attribute"], at=a.get("at"),
                                   known_at=a.get("known_at"), purpose=a.get("purpose"))
    actual = [member.value for member in found]
    if not _same_set(a["values"], actual):
        context.fail(step, {"values": a["values"]}, {"values": actual})


def _same_set(expected: list[Any], actual: list[Any]) -> bool:
    """Whether two lists hold the same JSON values, in any order (repeats counted)."""
    try:
        return sorted(canonical_json(v) for v in expected) == sorted(canonical_json(v) for v in actual)
    except SgamError:
        return False


def _subject_set(ids: list[Any]) -> list[str] | None:
    """Expected subject ids as the sorted set of their normalised forms (None if one is
    not a string: it can equal nothing found)."""
    if not all(isinstance(s, str) for s in ids):
        return None
    return sorted({normalise_subject(s) for s in ids})


def _expect_linked(context: ReplayContext, step: Step) -> None:
    a = step.args
    found = context.memory.linked(step.tenant, a["attribute"], a["to"], at=a.get("at"), known_at=a.get("known_at"),
                                  limit=MAX_QUERY_LIMIT)
    if _subject_set(a["subjects"]) != sorted(found):
        context.fail(step, {"subjects": a["subjects"]}, {"subjects": sorted(found)})


def _expect_reachable(context: ReplayContext, step: Step) -> None:
    a = step.args
    found = context.memory.reachable(step.tenant, a["from"], a["attributes"], depth=a["depth"], at=a.get("at"),
                                     known_at=a.get("known_at"), fan_out=MAX_FAN_OUT)
    if _subject_set(a["subjects"]) != sorted(found.subjects) or found.cut:
        context.fail(step, {"subjects": a["subjects"]}, {"subjects": sorted(found.subjects), "cut": found.cut})


def _expect_history(context: ReplayContext, step: Step) -> None:
    a = step.args
    found = context.memory.history(step.tenant, a["subject"], a["attribute"], known_at=a.get("known_at"),
                                   purpose=a.get("purpose"))
    values = [assertion.value for assertion in found]
    if len(values) != len(a["values"]) or not all(
        _same_value(e, v) for e, v in zip(a["values"], values, strict=False)
    ):
        context.fail(step, {"values": a["values"]}, {"values": values})


LEDGER_STEPS: dict[str, StepHandler] = {
    "clock": _clock, "episode": _episode, "schema": _schema, "write": _write,
    "retract": _retract, "correct": _correct, "forget": _forget,
    "retention": _retention, "consent": _consent, "alias": _alias, "unalias": _unalias,
    "rename": _rename, "retype": _retype, "expect_quarantined": _expect_quarantined,
    "expect": _expect, "expect_history": _expect_history, "expect_episode": _expect_episode,
    "expect_linked": _expect_linked, "expect_reachable": _expect_reachable,
}
