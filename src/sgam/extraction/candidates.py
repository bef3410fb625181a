"""The UPDATE object of replay format 1 as a Pydantic model, and parsing of model replies.

The same model gives the JSON Schema sent to real models (structured output) and the
check of what comes back, so the contract is written once. Fields a reply invents are
ignored, never stored: the tenant and the source episode come from the caller.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError

from .._core.errors import ValidationError
from .._core.values import MAX_TEXT_BYTES, canonical_json, check_text, normalise_subject

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
    _written: str = PrivateAttr(default="")
    """The subject as the model spelled it (``Mira Jansen``): a new subject's display name."""

    @field_validator("subject")
    @classmethod
    def _normalised(cls, subject: str) -> str:
        """A model may write ``Mira`` for ``mira``: policy, consent and holds compare the
        normalised id (an id empty once normalised is left for the write's check)."""
        return normalise_subject(subject) or subject

    @model_validator(mode="wrap")
    @classmethod
    def _keep_spelling(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Candidate:
        made: Candidate = handler(data)
        written = data.get("subject") if isinstance(data, dict) else None
        made._written = written if isinstance(written, str) else made.subject
        return made

    @property
    def written_subject(self) -> str:
        return self._written or self.subject


class AliasProposal(BaseModel):
    """The model's proposal that ``name`` is another name of the known subject ``subject``.
    Never applied by the model's word: policy holds it for a person to confirm."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    evidence: str = Field(description="Exact quote from the episode that says the two names are one subject.")
    name: str = Field(description="The other name, as the episode writes it.")
    subject: str = Field(description="The id of the known subject it names.")
    confidence: float = Field(ge=0, le=1, description="How sure you are, from 0 to 1.")


class Reply(BaseModel):
    """A whole structured-output reply."""

    model_config = ConfigDict(extra="ignore")

    updates: list[Candidate]
    aliases: list[AliasProposal] = Field(
        default_factory=list, description="Other names the episode gives known subjects (often none).")


def response_schema() -> dict[str, Any]:
    """The JSON Schema sent as ``response_format``; every field of an update (and of an
    alias proposal) is listed as required so strict decoders (OpenAI, vLLM, llama.cpp
    grammars) make the model write all of them. ``aliases`` stays optional: a reply of
    updates alone, as every model sent before it, still follows the schema."""
    schema = Reply.model_json_schema()
    for definition in schema.get("$defs", {}).values():
        if "properties" in definition:
            definition["required"] = list(definition["properties"])
    return schema


def parse_reply(raw: str) -> list[Candidate]:
    return parse_whole_reply(raw).updates


def parse_whole_reply(raw: str) -> Reply:
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
    return parse_reply_object(data)


def parse_reply_data(data: Any) -> list[Candidate]:
    return parse_reply_object(data).updates


def parse_reply_object(data: Any) -> Reply:
    try:
        return Reply.model_validate(data)
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValidationError(
            f"reply.{where}" if where else "reply",
            first.get("input"),
            f"not of the update schema: {first['msg']}",
        ) from None
