"""The one protocol every backend implements.

The required part is small: a write unit of work made of index lookups and row changes,
and a handful of reads. The rules live above it (``sgam._rules``), so SQLite and
PostgreSQL cannot disagree about them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from .._rules import KeyView, Operation, Plan, Version
from .._schema import AttributeSchema, MemoryTypeSchema

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

    def same_content(self, other: EpisodeRow) -> bool:
        return (
            self.occurred_at, self.text, self.speaker, self.kind, self.session, self.metadata
        ) == (other.occurred_at, other.text, other.speaker, other.kind, other.session, other.metadata)


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
class QueryFilter:
    subject: str | None = None
    attribute: str | None = None
    memory_type: str | None = None
    at: int | None = None
    known_at: int | None = None
    after: tuple[str, str, int] | None = None
    limit: int = 100


class WriteTransaction(Protocol):
    """One tenant's write unit of work; everything it does commits or rolls back together."""

    tenant: str

    def episode(self, episode_id: str) -> EpisodeRow | None: ...
    def insert_episode(self, row: EpisodeRow) -> None: ...
    def delete_episode(self, episode_id: str) -> int: ...

    def schema_version(self) -> int: ...
    def bump_schema_version(self) -> int: ...
    def attribute_schema(self, attribute: str) -> AttributeSchema | None: ...
    def put_attribute_schema(self, schema: AttributeSchema) -> None: ...
    def memory_type(self, name: str) -> MemoryTypeSchema | None: ...
    def put_memory_type(self, schema: MemoryTypeSchema) -> None: ...

    def lock_keys(self, keys: list[tuple[str, str]]) -> None:
        """Announce every key a batch will touch before it touches any, so a backend that
        locks per key can take the locks at once in a deadlock-free order (and prefetch)."""
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
    def record_erasure(self, target_kind: str, digest: str, erased_at: int, operations: int) -> None: ...

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
    def expired_items(self, now: int, limit: int) -> list[ItemRow]: ...

    # action ledger
    def action(self, action_key: str) -> ActionRow | None: ...
    def insert_action(self, row: ActionRow) -> None: ...
    def update_action(self, row: ActionRow) -> None:
        """Store the status, result, error, attempts and finish time of ``row``."""
        ...


class Reader(Protocol):
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

