"""The parameters MCP tools share, each described for the model that fills it in.

A model reads a tool's input schema and nothing else: every parameter says what it
means, timestamps carry ``format: date-time`` and the zone rule, and numeric limits are
in the schema (``minimum``/``maximum``) so a model need not learn them by failing.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .._core.values import MAX_QUERY_LIMIT
from ..recall.service import MAX_BUDGET, min_budget

ZONE_RULE = ("an RFC 3339 date-time with a zone (Z or an offset such as +02:00), e.g. 2026-06-01T09:00:00Z; "
             "a time without a zone is refused")
DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]

Subject = Annotated[str, Field(description="Who or what the fact is about, e.g. mira (non-empty text)")]
Attribute = Annotated[str, Field(description="Which property of the subject, e.g. city (non-empty text)")]
Question = Annotated[str, Field(description="The question or topic, in natural language")]
At = Annotated[DateTime | None, Field(description=f"The moment the facts should hold: {ZONE_RULE}. Default: now")]
KnownAt = Annotated[DateTime | None, Field(
    description=f"Answer as memory stood at this moment (what had been recorded by then): {ZONE_RULE}. "
                "Default: everything recorded")]
ValidFrom = Annotated[DateTime, Field(description=f"From when the value holds in the world: {ZONE_RULE}")]
ExpiresAt = Annotated[DateTime | None, Field(
    description=f"When this write is erased as if never recorded (later than now): {ZONE_RULE}. Default: never")]
Purpose = Annotated[str | None, Field(
    description="What the memory is for (a purpose name such as support): facts scoped to it, and consent for "
                "it. Default: the general timeline")]
Budget = Annotated[int, Field(ge=min_budget(), le=MAX_BUDGET,
                              description="Most tokens the returned context may take")]
Limit = Annotated[int, Field(ge=1, le=MAX_QUERY_LIMIT, description="Most results to return")]
Value = Annotated[Any, Field(description="The value: any JSON value (checked against the attribute's declared type)")]
Source = Annotated[str, Field(description="Id of the recorded episode the fact was stated in")]
EpisodeId = Annotated[str, Field(
    description="Your id for this episode, unique in the tenant (e.g. the message id). Calling again with the "
                "same id and text is a no-op that answers as the first call did")]
EpisodeText = Annotated[str, Field(description="The message or event, verbatim")]
EpisodeAt = Annotated[DateTime | None, Field(
    description=f"When it was said or happened: {ZONE_RULE}. Default: now on the first call; a retry with the "
                "same id and text keeps the time first recorded")]
