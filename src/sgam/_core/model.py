"""The records sgam returns: plain, immutable data that knows nothing about storage."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from .rules import Effect

T = TypeVar("T")


class Page(list[T]):
    """One page of results (a list); ``next_cursor`` continues after its last item, and
    is None when no result follows. Cursors are opaque: pass them back unchanged."""

    def __init__(self, items: list[T], next_cursor: str | None = None) -> None:
        super().__init__(items)
        self.next_cursor = next_cursor


@dataclass(frozen=True, slots=True)
class Episode:
    """A raw message, tool result or business event: the evidence facts point to."""

    tenant: str
    id: str
    at: datetime
    text: str
    recorded_at: datetime
    speaker: str | None = None
    kind: str = "message"
    session: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    schema_version: int = 0
    retention: str = "default"
    derived_from: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Assertion:
    """One version of a fact: ``subject.attribute = value`` over ``[valid_from, valid_to)``,
    as the ledger recorded it from ``recorded_at`` until ``superseded_at``. ``valid_to``
    and ``closed_by`` are as the ledger stood when read: a version written later that
    starts inside this one ends it there (and closes it) without superseding it."""

    id: int
    tenant: str
    subject: str
    attribute: str
    value: Any
    memory_type: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    superseded_at: datetime | None
    source: str
    confidence: float
    schema_version: int
    supersedes: int | None
    origin: str
    closed_by: str | None
    purpose: str | None = None
    """The purpose timeline the assertion belongs to; None for the general timeline."""

    def holds_at(self, moment: datetime) -> bool:
        return self.valid_from <= moment and (self.valid_to is None or moment < self.valid_to)

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None


@dataclass(frozen=True, slots=True)
class Fact:
    """Input of a batch write: one ``write`` operation."""

    subject: str
    attribute: str
    value: Any
    valid_from: datetime | str
    source: str
    memory_type: str | None = None
    confidence: float = 1.0
    purpose: str | None = None
    expires_at: datetime | str | None = None


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What an accepted operation did; ``assertion`` is the version now in force."""

    operation_id: int
    effect: Effect
    assertion: Assertion | None


@dataclass(frozen=True, slots=True)
class ForgetResult:
    """What an erasure removed. Counts, never content: the content is gone."""

    operations_removed: int
    episodes_removed: int
    keys_rederived: int
    residue: str | None = None
    """None when no copy of the erased data is known to remain in the database's files;
    else what remains and why (a SQLite reader holding an old snapshot, PostgreSQL's dead
    tuples until ``sgam compact``)."""


@dataclass(frozen=True, slots=True)
class KeyChange:
    """One key an erasure would change: its versions holding now, before and after (a
    set's member is a key of its own: ``attribute`` is the set's, the versions its member's)."""

    subject: str
    attribute: str
    before: list[Assertion]
    after: list[Assertion]


@dataclass(frozen=True, slots=True)
class ErasurePreview:
    """What an erasure would remove, found by running it in a transaction that is rolled
    back: the counts it would report and every key whose timeline it would change."""

    kind: str
    """``subject`` or ``episode``."""
    target: str
    """The target as the erasure names it (a subject's id, after normalisation)."""
    operations: int
    episodes: int
    keys: list[KeyChange]
    means: str | None = None
    """Of a subject: the subject ``target`` means now (itself, or the one it is an alias
    of), whose every name the erasure reaches; None for an episode."""


@dataclass(frozen=True, slots=True)
class ConsentState:
    """Whether memory about ``subject`` may be used, for ``purpose`` (None: every purpose)."""

    tenant: str
    subject: str
    purpose: str | None
    granted: bool
    changed_at: datetime


@dataclass(frozen=True, slots=True)
class PurgeResult:
    """What a purge removed past its deadline, and the physical clean-up it ran."""

    tenants: int
    operations_removed: int
    episodes_removed: int
    texts_dropped: int
    keys_rederived: int
    items_removed: int = 0
    """LangGraph store items expired with their history."""
    revisions_removed: int = 0
    """Document revisions past their deadline."""
    threads_erased: int = 0
    """Checkpoint threads whose class erases them, past its ttl: erased whole."""
    threads_pruned: int = 0
    """Checkpoint threads pruned to their newest checkpoint per namespace (what a resume
    needs) because older ones were past their class's ttl."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One erasure, expiry, purge or consent change of a tenant; never any content.
    ``seq`` numbers the tenant's own entries (1, 2, …: nothing about other tenants);
    ``target`` is a keyed digest of the subject or episode id (None when many)."""

    seq: int
    at: datetime
    action: str
    call: str
    target: str | None
    rows: int
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Key:
    tenant: str
    subject: str
    attribute: str


@dataclass(frozen=True, slots=True)
class Residue:
    """Where a searched string still appears in a tenant's store: ``places`` maps each
    table or file to how often; empty when the string is nowhere. ``unscanned``: places
    not searched because they mix tenants and the store holds others (SQLite's
    full-text index tables and files; docs/lifecycle.md)."""

    tenant: str
    text: str
    found: bool
    places: dict[str, int]
    unscanned: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Reachable:
    """The subjects reached by following relations outward (``Memory.reachable``);
    ``cut`` says the fan-out limit stopped the walk before it was complete."""

    tenant: str
    start: str
    subjects: list[str]
    cut: bool = False


@dataclass(frozen=True, slots=True)
class SubjectName:
    """A line of a subject's page of names (``Memory.names``): from ``since`` (until
    ``until``, its unalias; None while in force) ``name`` meant ``subject``, by
    ``decided_by``'s decision. ``subject`` is the id the alias step named, which may
    itself be an alias (a chain)."""

    tenant: str
    name: str
    subject: str
    since: datetime
    until: datetime | None
    decided_by: str | None


@dataclass(frozen=True, slots=True)
class SchemaChange:
    """A recorded schema migration step (``Memory.schema_history``): ``kind`` rename,
    retype or cardinality, of ``attribute`` at ``recorded_at``; ``detail`` holds the
    step's fields and the shape before it."""

    tenant: str
    seq: int
    kind: str
    attribute: str
    detail: dict[str, Any]
    recorded_at: datetime
    decided_by: str | None
    origin: str | None


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A value a retype set aside (``Memory.quarantined``): it had no conversion to the
    attribute's new type, or a memory type's new version could not convert it
    (``reason`` says which), so reads from ``since`` on answer as if it had never been
    recorded; a later retype with a ``map`` (or a later version of the memory type that
    converts it) gives it back, erasure reaches it."""

    tenant: str
    subject: str
    attribute: str
    value: Any
    since: datetime
    operation_id: int
    reason: str


@dataclass(frozen=True, slots=True)
class Backfill:
    """How far the backfill of a migration step is (``Memory.backfills``): the step's
    stored versions are derived again ``subjects_done`` of ``subjects_total`` subjects
    on, in subject order, a batch per transaction; until ``finished_at`` a read of a
    later subject converts on the fly (docs/schema-evolution.md)."""

    tenant: str
    step: int
    kind: str
    attribute: str
    attributes: list[str]
    subjects_done: int
    subjects_total: int
    batches_done: int
    after_subject: str | None
    started_at: datetime
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Where a tenant's vectors stand (``Memory.index_status``, ``Memory.reembed``): the
    embedder its search uses now, the one being built beside it, and how many of the rows
    that need a vector (episodes, current facts, document chunks) have one of ``building``,
    or of ``searching`` when nothing is being built."""

    tenant: str
    searching: str | None
    """The embedder search uses now; None: keyword search only."""
    recorded: bool
    """Whether ``searching`` is recorded for the tenant (a re-embedding switched to it);
    otherwise it is this process's own embedder, as before any re-embedding."""
    building: str | None
    building_since: datetime | None
    switched_at: datetime | None
    episodes: int
    episodes_embedded: int
    facts: int
    facts_embedded: int
    chunks: int
    chunks_embedded: int

    @property
    def complete(self) -> bool:
        """Every row that needs a vector of the counted embedder has one."""
        return (self.episodes_embedded, self.facts_embedded, self.chunks_embedded) == (
            self.episodes, self.facts, self.chunks)
