"""The rows a backend stores and returns: plain data, no behaviour beyond comparing."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class EpisodeRow:
    tenant: str
    episode_id: str
    occurred_at: int
    recorded_at: int
    text: str
    speaker: str | None
    kind: str
    session: str | None
    metadata: str
    schema_version: int
    retention: str = "default"
    lost_at: int | None = None
    """When the episode lost its text by expiry (keep_facts); None while it is readable."""

    def same_content(self, other: EpisodeRow) -> bool:
        return (
            self.occurred_at, self.text, self.speaker, self.kind, self.session, self.metadata, self.retention
        ) == (other.occurred_at, other.text, other.speaker, other.kind, other.session, other.metadata,
              other.retention)

    @property
    def readable(self) -> bool:
        return self.lost_at is None


# An error message may quote the reply it failed on, so it leaves with the reply.
ERROR_REDACTED = "detail removed by an erasure"


@dataclass(slots=True)
class ExtractionRow:
    """One extraction attempt of an episode: the raw reply and every decision (JSON list)."""

    tenant: str
    episode_id: str
    attempt: int
    recorded_at: int
    status: str
    error: str | None
    model: str | None
    raw_reply: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    decisions: str
    seq: int = 0


@dataclass(slots=True)
class HeldRow:
    """A candidate held back: ``pending`` confirmation or ``buffered`` as a weak signal."""

    tenant: str
    episode_id: str
    hold: str
    status: str
    subject: str
    attribute: str
    change: str
    value: str
    valid_from: int
    confidence: float
    stated: bool
    evidence: str
    created_at: int
    resolved_at: int | None = None
    seq: int = 0


@dataclass(slots=True)
class JobRow:
    """A queued extraction of one episode; the lease makes a killed worker's job reclaimable."""

    tenant: str
    episode_id: str
    status: str
    enqueued_at: int
    attempts: int
    lease_owner: str | None
    lease_expires: int | None
    last_error: str | None
    seq: int = 0


@dataclass(slots=True)
class ItemRow:
    """The current state of one LangGraph store item; ``value`` None once deleted (the
    row then keeps only the instant of its last change). The ledger keeps its history."""

    tenant: str
    namespace: str
    key: str
    value: str | None
    created_at: int
    updated_at: int
    expires_at: int | None
    ttl_minutes: float | None
    index_text: str | None
    vectors: bytes | None
    dims: int | None


@dataclass(slots=True)
class ActionRow:
    """An external call made at most once: its intent, then its outcome (``done``)."""

    tenant: str
    action_key: str
    request: str
    status: str
    result: str | None
    error: str | None
    attempts: int
    started_at: int
    finished_at: int | None
    thread_id: str | None = None
    """The checkpoint thread the action was made for, if any."""


@dataclass(frozen=True, slots=True)
class RetentionRow:
    """A declared retention class; ``ttl`` in microseconds, None to keep until erased."""

    name: str
    ttl: int | None
    on_expiry: str
    declared_at: int


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One lifecycle event of a tenant, without content: ``target`` is a keyed digest."""

    at: int
    action: str
    call: str
    target: str | None
    rows: int
    detail: str
    seq: int = 0


@dataclass(frozen=True, slots=True)
class ClassHoldings:
    """What a retention class holds: live and text-less episodes, documents with kept
    revisions, and the oldest recording time among them (its deadline is that plus the ttl)."""

    name: str
    episodes: int
    text_lost: int
    oldest_recorded_at: int | None
    documents: int = 0


@dataclass(frozen=True, slots=True)
class ResidueHit:
    """A place where a searched string still appears, and how often."""

    place: str
    matches: int


@dataclass(frozen=True, slots=True)
class ResidueScan:
    """What a residue scan found for a tenant, and the places it did not search because
    what they hold cannot be attributed to that tenant."""

    hits: list[ResidueHit]
    unscanned: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class QueryFilter:
    subject: str | None = None
    attribute: str | None = None
    memory_type: str | None = None
    at: int | None = None
    known_at: int | None = None
    after: tuple[str, str, int] | None = None
    limit: int = 100
    purpose: str | None = None
    """None: the general timeline only; a name: the general timeline and that purpose's."""
    many: bool = False
    """``attribute`` is a set (cardinality many): its members' keys are read."""


@dataclass(frozen=True, slots=True)
class AliasRow:
    """One alias step as recorded: ``name`` means ``subject`` from ``recorded_at`` until
    ``ended_at`` (its unalias, the tenant's step ``ended_step``). ``after_seq`` and
    ``ended_after_seq``: the last operation recorded before each, which orders steps and
    operations of one instant."""

    seq: int
    name: str
    subject: str
    recorded_at: int
    after_seq: int
    decided_by: str | None = None
    ended_step: int | None = None
    ended_at: int | None = None
    ended_after_seq: int | None = None


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One schema migration step as recorded: ``kind`` rename, retype or cardinality, of
    ``attribute`` (``detail``: the step's fields and the shape before it, as JSON);
    ``after_seq`` places it in the operation log like an alias step."""

    seq: int
    kind: str
    attribute: str
    detail: str
    recorded_at: int
    after_seq: int
    decided_by: str | None = None
    origin: str | None = None
    """Where the step came from (a migration file's name), for its record."""


@dataclass(frozen=True, slots=True)
class QuarantineRow:
    """An operation a retype set aside: its value had no conversion to the new type."""

    seq: int
    subject: str
    attribute: str
    value: str
    since: int


@dataclass(frozen=True, slots=True)
class ConvertedRow:
    """What the conversion function of a memory type's new version (the ``retype`` change
    ``step``) made of operation ``seq``: its new value (canonical JSON), or the ``reason``
    it was set aside. Kept because re-deriving later cannot call the function."""

    step: int
    seq: int
    value: str | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class BackfillRow:
    """A step's backfill: its stored versions derived again a batch of subjects at a
    time, in subject order. ``attributes``: the names it derives again (JSON list);
    ``after_subject``: the last subject done (None: none yet); ``finished_at`` None while
    reads of a later subject convert on the fly."""

    seq: int
    attributes: str
    after_subject: str | None
    subjects_done: int
    subjects_total: int
    batches_done: int
    started_at: int
    finished_at: int | None = None
    conversion: str | None = None
    """A retype alone on its attribute (no earlier step of it, no alias in the tenant):
    its type and map as JSON, so a read converts a key from its stored versions."""
    screened_at: int | None = None
    """When the first batch screened the attribute's values (``ledger/screening.py``):
    from then on a read converts a key outside ``backfill_holdouts`` from one version."""
