"""Replay operations of the extraction path (replay format 1, Extraction).

``model_reply`` queues a scripted reply; ``extract`` runs the extraction with the
scripted model while replies are queued, else with the configured one. Policies that
hold updates back are off unless the scenario turns them on: ``schema`` with
``sensitive: true`` holds that attribute for confirmation, and ``extract`` takes
``min_confidence``, ``promote_after``, ``hold_inferred`` and ``confirm_ambiguous``. ``confirm`` and ``reject``
settle a held candidate of a key.
"""

from __future__ import annotations

from typing import Any

from .._core.errors import NotFoundError, ValidationError
from .._core.values import canonical_json, normalise_subject
from ..extraction import ExtractionPolicy, HeldCandidate, ScriptedClient
from .context import ReplayContext, StepHandler
from .loader import Step

POLICY_KEYS = ("min_confidence", "promote_after", "hold_inferred", "confirm_sensitive", "confirm_ambiguous")


def _scripted(context: ReplayContext) -> ScriptedClient:
    client = context.extras.get("scripted_model")
    if not isinstance(client, ScriptedClient):
        client = ScriptedClient()
        context.extras["scripted_model"] = client
    return client


def _model_reply(context: ReplayContext, step: Step) -> None:
    _scripted(context).queue(step.args)


def _policy(args: dict[str, Any]) -> ExtractionPolicy:
    settings = {key: args[key] for key in POLICY_KEYS if key in args}
    if "min_confidence" in settings and "hold_inferred" not in settings:
        settings["hold_inferred"] = False
    try:
        return ExtractionPolicy.model_validate({**ExtractionPolicy.off().model_dump(), **settings})
    except ValueError as exc:
        raise ValidationError("extract", settings, f"bad policy setting ({exc})") from None


def _extract(context: ReplayContext, step: Step) -> None:
    policy = _policy(step.args)
    scripted = _scripted(context)
    # with no scripted reply queued, the model sgam is configured with answers
    client = scripted if len(scripted) else None
    context.memory.extract(step.tenant, step.args["episode"], client=client, policy=policy)


def _held_of_key(context: ReplayContext, step: Step) -> HeldCandidate:
    a = step.args
    wanted = None if "value" not in a else canonical_json(a["value"])
    matches = [
        h
        for h in context.memory.held(step.tenant, limit=10_000)
        if isinstance(a["subject"], str) and h.subject == normalise_subject(a["subject"])
        and h.attribute == a["attribute"]
        and (wanted is None or canonical_json(h.value) == wanted)
    ]
    if not matches:
        raise NotFoundError(f"no held candidate for {a['subject']}.{a['attribute']}", field="subject")
    return matches[-1]


def _confirm(context: ReplayContext, step: Step) -> None:
    context.memory.confirm(step.tenant, _held_of_key(context, step).id)


def _reject(context: ReplayContext, step: Step) -> None:
    context.memory.reject(step.tenant, _held_of_key(context, step).id)


EXTRACTION_STEPS: dict[str, StepHandler] = {
    "model_reply": _model_reply, "extract": _extract, "confirm": _confirm, "reject": _reject,
}
