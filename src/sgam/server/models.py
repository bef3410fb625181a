"""Request bodies of the HTTP API: strict shapes, unknown fields refused.

Only the shape is checked here (types, required fields, no extras); every rule about the
values (names, timestamps, sizes) stays in the library, so HTTP, MCP and Python callers
get the same errors. No body names a tenant: it comes from the API key.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from .._core.model import Assertion, Backfill, SchemaChange
from .._core.schema import ValueType
from ..recall import RecallItem

Timestamp = Annotated[StrictStr, Field(description="RFC 3339 timestamp with a zone, e.g. 2026-06-01T09:00:00Z",
                                       json_schema_extra={"format": "date-time"})]
Name = Annotated[StrictStr, Field(description="A subject, attribute or id: non-empty text")]
JsonValue = Annotated[Any, Field(description="Any JSON value (checked against a declared type, if any)")]
Confidence = Annotated[StrictFloat | StrictInt, Field(description="0 to 1")]
Purpose = Annotated[StrictStr | None, Field(
    description="The purpose whose timeline this concerns (none: the general timeline)")]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EpisodeFields(Body):
    """A raw message, tool result or event: the evidence facts cite."""

    id: Name
    at: Timestamp
    text: StrictStr
    speaker: StrictStr | None = None
    kind: StrictStr = "message"
    session: StrictStr | None = None
    metadata: dict[str, Any] | None = None
    retention: Annotated[StrictStr, Field(description="Retention class (see /v1/retention)")] = "default"


class EpisodeIn(EpisodeFields):
    """An episode to record, optionally made from others (a summary, a note)."""

    derived_from: Annotated[list[StrictStr] | None, Field(
        description="Ids of the episodes this one was made from: erasing or expiring them reaches it too")] = None


class RememberIn(EpisodeFields):
    """An episode to record and extract facts from (``extract`` false: queue it for the
    worker; omitted: extract now when the server has a model configured, else queue)."""

    extract: StrictBool | None = None


class FactIn(Body):
    subject: Name
    attribute: Name
    value: JsonValue
    valid_from: Timestamp
    source: Annotated[StrictStr, Field(description="Id of the episode this fact comes from")]
    memory_type: StrictStr | None = None
    confidence: Confidence = 1.0
    purpose: Purpose = None
    expires_at: Annotated[Timestamp | None, Field(
        description="When this write is erased as if never recorded (later than now)")] = None


class RetractIn(Body):
    subject: Name
    attribute: Name
    at: Timestamp
    source: StrictStr
    purpose: Purpose = None
    value: JsonValue = None
    """For a set (cardinality many): the member that stopped holding."""


class AliasIn(Body):
    name: Name
    """Another name of ``subject`` from now on."""
    subject: Name


class UnaliasIn(Body):
    name: Name
    """An alias that is its own subject again from now on."""


class CorrectIn(Body):
    subject: Name
    attribute: Name
    valid_from: Timestamp
    value: JsonValue
    source: StrictStr
    confidence: Confidence = 1.0
    purpose: Purpose = None


class SearchIn(Body):
    question: StrictStr
    limit: StrictInt = 10
    config: StrictStr | None = None
    since: Timestamp | None = None
    until: Timestamp | None = None
    session: StrictStr | None = None
    speaker: StrictStr | None = None
    subject: StrictStr | None = None
    memory_type: StrictStr | None = None
    purpose: Purpose = None


class RecallIn(Body):
    question: StrictStr
    budget: StrictInt = 1000
    at: Timestamp | None = None
    known_at: Timestamp | None = None
    config: StrictStr | None = None
    purpose: Purpose = None


class DeclareIn(Body):
    attribute: Name
    value_type: StrictStr | None
    memory_type: StrictStr | None = None
    sensitive: StrictBool = False
    description: StrictStr | None = None
    cardinality: StrictStr | None = None
    """one, or many (a set); absent keeps what the attribute had."""


class RenameIn(Body):
    attribute: Name
    to: Name
    """The attribute's name from now on; the old name keeps working."""
    backfill: StrictBool | None = None
    """Convert in batches after the step is recorded (202); null: when the attribute has
    more than 2,000 subjects."""


class RetypeIn(Body):
    attribute: Name
    value_type: Annotated[StrictStr, Field(
        description="The attribute's value type from now on",
        json_schema_extra={"enum": [t.value for t in ValueType]})]
    map: list[tuple[JsonValue, JsonValue]] | None = None
    """``[old, new]`` pairs: a value ``old`` becomes ``new`` (of the new type)."""
    quarantine: StrictBool = False
    """Set aside the values with no conversion instead of refusing the retype."""
    backfill: StrictBool | None = None
    """Convert in batches after the step is recorded (202); null: when the attribute has
    more than 2,000 subjects."""


class ReembedIn(Body):
    embedder: StrictStr
    """The embedder to build and switch search to, as ``SGAM_EMBEDDER`` names one
    (``wordllama``, ``model2vec:/path``...): the server must be able to load it."""
    batch: StrictInt = 1000
    """Rows embedded per transaction."""


class RecallOut(BaseModel):
    """The packed context (``context``: what a model reads, fenced as data) and the items
    in it, split into ledger facts, document passages and search evidence (the shape of
    ``recall`` on every surface: ``sgam.boundary.recall_json``)."""

    question: str
    context: str
    facts: list[RecallItem]
    documents: list[RecallItem]
    evidence: list[RecallItem]
    tokens: int
    budget: int
    dropped: int


class WhoAmI(BaseModel):
    tenant: str
    key_id: str
    scope: Literal["read", "write", "admin"]


class FieldProblem(BaseModel):
    field: str
    detail: str = Field(description="What was wrong with the field, in words")


class ProblemOut(BaseModel):
    """RFC 9457 problem details, with sgam's error ``kind`` (and ``field`` when known;
    ``errors`` when a request broke the rules of several fields)."""

    type: str
    title: str
    status: int
    detail: str
    kind: str
    field: str | None = None
    errors: list[FieldProblem] | None = None
    instance: str | None = None


class AssertionPage(BaseModel):
    """One page of ``query``; pass ``next_cursor`` back as ``cursor`` for the next."""

    items: list[Assertion]
    next_cursor: str | None


class RetentionIn(Body):
    """A retention class: data of the class is kept ``ttl`` after it was recorded (ISO 8601
    days/hours/minutes/seconds, e.g. P30D; null: until erased), then erased or stripped of
    its text (``keep_facts``)."""

    ttl: StrictStr | None
    on_expiry: Annotated[StrictStr, Field(description="erase or keep_facts")] = "erase"


class RetentionClassOut(BaseModel):
    name: str
    ttl: str | None = Field(description="ISO 8601 duration; null keeps data until it is erased")
    on_expiry: str
    declared_at: datetime | None = Field(description="null for the built-in default never declared")


class ClassHolding(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    class_: str = Field(alias="class")
    ttl: str | None
    on_expiry: str
    episodes: int
    text_lost: int
    documents: int = Field(description="documents with a revision kept in this class")
    next_deadline: datetime | None


class Deadline(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    kind: str
    class_: str | None = Field(alias="class")
    at: datetime


class RetentionReportOut(BaseModel):
    """What each class holds and when the next deadlines fall (nothing of content)."""

    tenant: str
    now: datetime
    classes: list[ClassHolding]
    next_deadlines: list[Deadline]


class ConsentIn(Body):
    """Whether memory about the subject may be used from now on, for one ``purpose`` or
    (null) every purpose. Revoking erases nothing; granting again restores use."""

    granted: StrictBool
    purpose: Purpose = None


class ConsentedOut(BaseModel):
    subject: str
    purpose: str | None
    consented: bool


class ResidueIn(Body):
    text: Annotated[StrictStr, Field(description="The text to look for in every table, index and file")]


class StepAccepted(BaseModel):
    """A migration step recorded, its backfill left to run in the server: reads convert
    on the fly until it is finished; ``status`` says how far it is."""

    change: SchemaChange
    backfill: Backfill
    status: StrictStr


class BackfillRun(BaseModel):
    """A backfill and whether this server is running it (``started``: by this request;
    false with ``running``: a worker already was, and only that one runs it)."""

    backfill: Backfill
    running: StrictBool
    started: StrictBool
