"""The UPDATE object of replay format 1 as a Pydantic model, and parsing of model replies.

The same model gives the JSON Schema sent to real models (structured output) and the
check of what comes back, so the contract is written once. Fields a reply invents are
ignored, never stored: the tenant and the source episode come from the caller.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from .._errors import ValidationError
from .._values import MAX_TEXT_BYTES, canonical_json, check_text, normalise_subject

JsonValue = str | int | float | bool | list[Any] | dict[str, Any] | None


class Change(StrEnum):
    NEW = "new"
    UPDATE = "update"
    NO_CHANGE = "no_change"
    RETRACT = "retract"


class Candidate(BaseModel):
    """One proposed update. Field order is the order models write them: evidence first,
    so the value is generated after (and conditioned on) the quote that supports it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    evidence: str = Field(description="Exact quote from the episode that supports the update.")
    subject: str = Field(description='Normalised entity id, e.g. "mira".')
    attribute: str = Field(description='The property, e.g. "passport_deadline".')
    current_value: JsonValue = Field(default=None, description="The stored value you were shown, or null.")
    change: Change = Field(description="new | update | no_change | retract.")
    value: JsonValue = Field(default=None, description="The new value; null for no_change and retract.")
    valid_from: str | None = Field(
        default=None, description="When the new value starts to hold (RFC 3339 with zone), or null."
    )
    confidence: float = Field(ge=0, le=1, description="How sure you are, from 0 to 1.")
    stated: bool = Field(
        default=True,
        description="true if the episode states this outright; false if you inferred it.",
    )

    @field_validator("subject")
    @classmethod
    def _normalised(cls, subject: str) -> str:
        """A model may write ``Mira`` for ``mira``: policy, consent and holds compare the
        normalised id (an id empty once normalised is left for the write's check)."""
        return normalise_subject(subject) or subject


class Reply(BaseModel):
    """A whole structured-output reply."""

    model_config = ConfigDict(extra="ignore")

    updates: list[Candidate]


def response_schema() -> dict[str, Any]:
    """The JSON Schema sent as ``response_format``; every field is listed as required so
    strict decoders (OpenAI, vLLM, llama.cpp grammars) make the model write all of them."""
    schema = Reply.model_json_schema()
    for definition in schema.get("$defs", {}).values():
        if "properties" in definition:
            definition["required"] = list(definition["properties"])
    return schema


def parse_reply(raw: str) -> list[Candidate]:
    """Turn a raw reply into candidates; anything unusable is a ValidationError naming
    the field, and then nothing from the reply may be written."""
    check_text(raw, "reply")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, TypeError) as exc:
        raise ValidationError("reply", raw, f"is not JSON ({exc})") from None
    except RecursionError:
        raise ValidationError("reply", raw, "is nested too deeply") from None
    canonical_json(data, "reply", MAX_TEXT_BYTES)  # valid Unicode after its escapes, bounded depth
    return parse_reply_data(data)


def parse_reply_data(data: Any) -> list[Candidate]:
    try:
        return Reply.model_validate(data).updates
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValidationError(
            f"reply.{where}" if where else "reply",
            first.get("input"),
            f"not of the update schema: {first['msg']}",
        ) from None
