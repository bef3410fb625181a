"""The one protocol every backend implements.

The required part is small: a write unit of work made of index lookups and row changes,
and a handful of reads. The rules live above it (``sgam._rules``), so SQLite and
PostgreSQL cannot disagree about them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .._purpose import ConsentRow, ledger_attribute
from .._rules import KeyView, Operation, Plan, Version
from .._schema import AttributeSchema, MemoryTypeSchema
from ._access import ApiKeyRow, IdempotencyRow
from ._documents import DocumentStore

T = TypeVar("T")


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
    """What a retention class holds: live and text-less episodes, the oldest live one's
    recording time (its deadline is that plus the ttl)."""

    name: str
    episodes: int
    text_lost: int
    oldest_recorded_at: int | None


@dataclass(frozen=True, slots=True)
class ResidueHit:
    """A place where a searched string still appears, and how often."""

    place: str
    matches: int


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


def timeline_clause(flt: QueryFilter, general: str, suffix: str, mark: str) -> tuple[str, list[Any]]:
    """The SQL condition of a query's timelines: the general one (``general``: no
    separator in the ledger attribute), plus ``flt.purpose``'s (``suffix``: the ledger
    attribute ends with separator + purpose), narrowed to ``flt.attribute``."""
    if flt.attribute is not None:
        names = [ledger_attribute(flt.attribute, None)]
        if flt.purpose is not None:
            names.append(ledger_attribute(flt.attribute, flt.purpose))
        return f"attribute IN ({', '.join([mark] * len(names))})", list(names)
    if flt.purpose is None:
        return general, []
    tail = ledger_attribute("", flt.purpose)
    return f"({general} OR {suffix})", [len(tail), tail]


class LifecycleReads(Protocol):
    """Retention, consent, derivations and the audit log, read inside any unit of work."""

    def retention_classes(self) -> list[RetentionRow]: ...
    def lifecycle_due(self, now: int) -> bool:
        """Whether any write or episode of the tenant is past its deadline at ``now``
        (and not yet handled): one index probe per retention class."""
        ...
    def consents(self, subject: str | None) -> list[ConsentRow]:
        """The subject's consent statements, or (None) those of every subject that has any."""
        ...
    def revoking_consents(self, uses: Sequence[str] | None = None) -> list[ConsentRow]:
        """The statements of every subject with a revoked one (among ``uses``, purposes
        with '' for every purpose; None: any): all a ``ConsentBook`` for those uses needs,
        since a subject without such a statement is consented."""
        ...
    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(derived episode, source episode) edges whose derived side is in ``episode_ids``."""
        ...
    def sourced_subjects(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(episode, subject) for every subject an operation sourced from the episodes has."""
        ...
    def audit(self, limit: int) -> list[AuditRow]:
        """The tenant's audit log, newest first."""
        ...
    def class_holdings(self) -> list[ClassHoldings]: ...
    def next_deadlines(self, now: int, limit: int) -> list[tuple[str, str, int]]:
        """The next ``limit`` deadlines after ``now``: (kind, retention class or '', instant)."""
        ...


class LifecycleWrites(LifecycleReads, Protocol):
    """Changes the lifecycle makes; erasure and expiry use them with the ledger's own."""

    def retention_class(self, name: str) -> RetentionRow | None: ...
    def put_retention_class(self, row: RetentionRow) -> None: ...
    def insert_derivations(self, episode_id: str, sources: Sequence[str]) -> None: ...
    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        """Episodes made directly from any of ``episode_ids``."""
        ...
    def tombstoned(self, digest: str) -> bool: ...
    def add_tombstones(self, digests: Sequence[str]) -> None: ...
    def lock_lifecycle(self) -> None:
        """Serialise expiry passes and consent changes of the tenant."""
        ...
    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        """(seq, subject, attribute) of operations whose ``expires_at`` <= ``now``."""
        ...
    def delete_operations(self, seqs: Sequence[int]) -> int: ...
    def due_episodes(self, now: int) -> list[tuple[str, str]]:
        """(episode id, on_expiry) of episodes past their class deadline at ``now`` that
        expiry has not handled yet (a keep_facts episode already without text is done)."""
        ...
    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """Drop the text (and speaker, session, metadata, vectors) of episodes; the rows stay."""
        ...
    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None: ...
    def delete_consents_of_subject(self, subject: str) -> int: ...
    def record_audit(self, row: AuditRow) -> None: ...


class WriteTransaction(LifecycleWrites, Protocol):
    """One tenant's write unit of work; everything it does commits or rolls back together."""

    tenant: str

    def episode(self, episode_id: str) -> EpisodeRow | None: ...
    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        """A batch names the episodes it will look up, so a backend that pays a round trip
        per statement can fetch them in one."""
        ...
    def insert_episode(self, row: EpisodeRow) -> None: ...
    def delete_episode(self, episode_id: str) -> int: ...

    def schema_version(self) -> int: ...
    def bump_schema_version(self) -> int: ...
    def attribute_schema(self, attribute: str) -> AttributeSchema | None: ...
    def put_attribute_schema(self, schema: AttributeSchema) -> None: ...
    def memory_type(self, name: str) -> MemoryTypeSchema | None: ...
    def put_memory_type(self, schema: MemoryTypeSchema) -> None: ...

    def document_store(self) -> DocumentStore:
        """Document memory's tables, used with this unit of work as their handle."""
        ...
    def lock_keys(self, keys: list[tuple[str, str]]) -> None:
        """Announce every key a batch will touch before it touches any, so a backend that
        locks per key can take the locks at once in a deadlock-free order (and prefetch)."""
        ...
    def prefetch_one(self, subject: str, attribute: str, moment: int, source: str) -> None:
        """A one-operation unit of work names its key, instant and source before any lookup,
        so a backend that pays a round trip per statement can take the key's lock and fetch
        everything the rules will ask (schema version, source, last change, the versions
        around ``moment``) at once."""
        ...
    def key(self, subject: str, attribute: str) -> KeyView: ...
    def current(self, subject: str, attribute: str) -> list[Version]:
        """The current versions of a key, ordered by ``valid_from``."""
        ...
    def retire(self, versions: list[Version], recorded_at: int) -> None:
        """End the recorded interval of current versions at ``recorded_at``; a version
        recorded at that very instant was never visible and is deleted instead."""
        ...
    def insert_versions(self, versions: list[Version]) -> None: ...
    def last_recorded_at(self, subject: str, attribute: str) -> int | None: ...
    def append_operation(self, op: Operation) -> int:
        """Store ``op`` (its ``seq`` is ignored) and return the sequence number it got."""
        ...
    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Store many operations; their sequence numbers follow the list's order."""
        ...
    def apply(self, plan: Plan, recorded_at: int) -> None:
        """Retire ``plan.retire`` at ``recorded_at`` (drop those recorded at that very
        instant) and insert ``plan.add`` as current versions."""
        ...

    def operations(self, subject: str, attribute: str) -> list[Operation]: ...
    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]: ...
    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]: ...
    def delete_operations_of_subject(self, subject: str) -> int: ...
    def delete_operations_of_source(self, episode_id: str) -> int: ...
    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None: ...

    # extraction path
    def next_extraction_attempt(self, episode_id: str) -> int: ...
    def insert_extraction(self, row: ExtractionRow) -> int:
        """Store an extraction record (unique per tenant, episode and attempt); its seq."""
        ...
    def hold_candidate(self, row: HeldRow) -> int:
        """Insert a held candidate unless the same one (hold, episode, key, value,
        valid_from) is already held; return its seq either way."""
        ...
    def held(self, seq: int) -> HeldRow | None: ...
    def held_like(self, hold: str, subject: str, attribute: str, value: str) -> list[HeldRow]:
        """Open held candidates of ``hold`` with this key and value (recurrence counting)."""
        ...
    def resolve_held(self, seqs: list[int], status: str, resolved_at: int) -> None: ...
    def enqueue_job(self, episode_id: str, enqueued_at: int) -> None:
        """Queue the episode's extraction; an episode already queued or done stays as is."""
        ...
    def finish_job(self, episode_id: str, owner: str, status: str, error: str | None) -> bool:
        """Set the status of a job leased by ``owner`` and drop the lease ('queued' hands
        it back for a retry); False if ``owner`` no longer holds the lease."""
        ...
    def delete_extraction_records(self, episode_id: str) -> int:
        """Erasure: remove extractions, held candidates and the job of the episode."""
        ...
    def delete_held_of_subject(self, subject: str) -> int:
        """Erasure of a subject: its held candidates must not be confirmed back."""
        ...
    def extractions_mentioning(self, needles: Sequence[str]) -> list[ExtractionRow]:
        """Erasure of a subject: the tenant's extraction records whose raw reply or
        decisions contain any of ``needles`` (a superset; the caller decides)."""
        ...
    def redact_extraction(self, seq: int, raw_reply: str | None, decisions: str) -> None:
        """Erasure of a subject: replace an extraction record's raw reply and decisions."""
        ...

    # LangGraph store items (current state; reads as in ``Reader``)
    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]: ...
    def put_item(self, row: ItemRow) -> None:
        """Insert or replace the item's row (and its full-text entry)."""
        ...
    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        """Restart the TTL of live, unexpired items that have one, from ``now``."""
        ...
    def delete_item(self, namespace: str, key: str) -> int:
        """Erasure: remove the item's row and index entries."""
        ...
    def expired_items(self, now: int, limit: int) -> list[ItemRow]:
        """Rows (live or deleted) whose ``expires_at`` <= ``now``, soonest first."""
        ...
    def set_key_expiry(self, subject: str, attribute: str, expires_at: int | None) -> None:
        """Set the deadline of every operation of a ledger key (an item's TTL covers its
        whole history); None: no deadline."""
        ...

    # action ledger
    def action(self, action_key: str) -> ActionRow | None: ...
    def insert_action(self, row: ActionRow) -> None: ...
    def update_action(self, row: ActionRow) -> None:
        """Store the status, result, error, attempts and finish time of ``row``."""
        ...

    # network surfaces: API keys and idempotent requests (store/_access.py)
    def api_key(self, key_id: str) -> ApiKeyRow | None: ...
    def insert_api_key(self, row: ApiKeyRow) -> None: ...
    def revoke_api_key(self, key_id: str, revoked_at: int) -> None: ...
    def idempotency(self, key: str) -> IdempotencyRow | None: ...
    def reserve_idempotency(self, key: str, request_digest: str, created_at: int) -> None: ...
    def finish_idempotency(self, key: str, status: int, response: str) -> None: ...
    def release_idempotency(self, key: str) -> None: ...
    def expire_idempotency(self, before: int) -> None: ...


class Reader(LifecycleReads, Protocol):
    """Reads scoped to one tenant; every one is an index lookup or an index range."""

    tenant: str

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None: ...
    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]: ...
    def versions(self, subject: str, attribute: str) -> list[Version]: ...
    def query(self, flt: QueryFilter) -> list[Version]: ...
    def episode(self, episode_id: str) -> EpisodeRow | None: ...
    def episodes(self, session: str | None, limit: int) -> list[EpisodeRow]: ...
    def attribute_schemas(self) -> list[AttributeSchema]: ...
    def memory_types(self) -> list[MemoryTypeSchema]: ...
    def operations(self, subject: str, attribute: str) -> list[Operation]: ...
    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        """Extraction records, newest first, of one episode or of the whole tenant."""
        ...
    def extraction(self, seq: int) -> ExtractionRow | None: ...
    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]: ...
    def held(self, seq: int) -> HeldRow | None: ...
    def job(self, episode_id: str) -> JobRow | None: ...

    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        """Rows of these (namespace, key) pairs as stored: deleted and expired ones too."""
        ...
    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        """Live items under a namespace prefix, most recently updated first (``limit``
        None: all of them)."""
        ...
    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        """(namespace, key) of live items whose search text matches any term, best first."""
        ...
    def item_namespaces(self, prefix: str | None, now: int) -> list[str]:
        """Distinct namespaces holding live items under a prefix."""
        ...
    def actions(self, status: str | None, limit: int) -> list[ActionRow]: ...
    def api_key(self, key_id: str) -> ApiKeyRow | None: ...
    def api_keys(self) -> list[ApiKeyRow]: ...
