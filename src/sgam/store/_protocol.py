"""The store contract, split by capability.

Each capability is a small protocol: the ledger's lookups and row changes, episodes, the
tenant's schema, erasure, the extraction path and its jobs, the lifecycle, LangGraph
items and the action ledger. ``WriteTransaction`` and ``Reader`` are their composition;
code above the store asks for the narrowest one it needs. The rules live above this line
(``sgam._core.rules``), so SQLite and PostgreSQL cannot disagree about them; conveniences made
of several calls (``apply_plan``) are plain functions here, not methods every backend repeats.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._core.purpose import ConsentRow
from .._core.rules import KeyView, Operation, Plan, Version
from .._core.schema import AttributeSchema, MemoryTypeSchema
from ._access import ApiKeyRow, IdempotencyRow
from ._context import Attempt
from ._documents import DocumentStore
from ._records import (
    ERROR_REDACTED,
    ActionRow,
    AliasRow,
    AuditRow,
    BackfillRow,
    ChangeRow,
    ClassHoldings,
    ConvertedRow,
    EpisodeRow,
    ExtractionRow,
    HeldRow,
    ItemRow,
    JobRow,
    QuarantineRow,
    QueryFilter,
    ResidueHit,
    ResidueScan,
    RetentionRow,
)
from ._requests import OneFactWrite, ReadAhead

if TYPE_CHECKING:
    from ._portable import PortableTable
    from ._sql.checkpoints import CheckpointRecords, CheckpointRow, CheckpointWriteRow
    from ._sql.session import Row

__all__ = [
    "ERROR_REDACTED",
    "AccessReads",
    "AccessWrites",
    "ActionReads",
    "ActionRow",
    "AliasRow",
    "ChangeRow",
    "CheckpointWriter",
    "ActionWrites",
    "AuditRow",
    "BackfillRow",
    "ClassHoldings",
    "ConvertedRow",
    "DocumentAccess",
    "PortableAccess",
    "PortableRowStore",
    "EpisodeReads",
    "EpisodeRow",
    "EpisodeWrites",
    "ErasureWrites",
    "ExtractionReads",
    "ExtractionRow",
    "ExtractionWrites",
    "HeldRow",
    "ItemReads",
    "ItemRow",
    "ItemWrites",
    "JobRow",
    "LedgerReads",
    "LedgerWrites",
    "LifecycleReads",
    "LifecycleWrites",
    "QuarantineRow",
    "QueryFilter",
    "Reader",
    "ResidueHit",
    "ResidueScan",
    "RetentionRow",
    "SchemaReads",
    "SchemaWrites",
    "WriteTransaction",
    "apply_plan",
]


class Scope(Protocol):
    """Every capability is scoped to one tenant."""

    tenant: str


# episodes ------------------------------------------------------------------------------


class EpisodeReads(Scope, Protocol):
    def episode(self, episode_id: str) -> EpisodeRow | None: ...


class EpisodeWrites(EpisodeReads, Protocol):
    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        """A batch names the episodes it will look up, so a backend that pays a round trip
        per statement can fetch them in one."""
        ...
    def insert_episodes(self, rows: Sequence[EpisodeRow]) -> None: ...
    def delete_episode(self, episode_id: str) -> int: ...


# the tenant's schema -------------------------------------------------------------------


class SchemaReads(Scope, Protocol):
    def attribute_schemas(self) -> list[AttributeSchema]: ...
    def memory_types(self) -> list[MemoryTypeSchema]: ...


class SchemaLookups(Scope, Protocol):
    """What validating a value against the tenant's schema asks."""

    def attribute_schema(self, attribute: str) -> AttributeSchema | None: ...
    def memory_type(self, name: str) -> MemoryTypeSchema | None: ...


class SchemaWrites(SchemaLookups, Protocol):
    def hold_schema(self) -> None:
        """Hold the tenant's schema for a step that changes it: wait until every unit of
        work that has read it ends, and make those that read it later wait until this one
        ends, so that a write validates against the schema its transaction commits beside
        and an operation a step covers was recorded before it. Asked first in a step."""
        ...
    def schema_version(self) -> int: ...
    def bump_schema_version(self) -> int: ...
    def put_attribute_schema(self, schema: AttributeSchema) -> None: ...
    def put_memory_type(self, schema: MemoryTypeSchema) -> None: ...


# the ledger ----------------------------------------------------------------------------


class LedgerReads(Scope, Protocol):
    """Every read is an index lookup or an index range."""

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None: ...
    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]: ...
    def versions(self, subject: str, attribute: str) -> list[Version]: ...
    def key_rows(self, subject: str, attribute: str) -> list[Version]:
        """Every stored version of the key as stored (ends not derived)."""
        ...
    def key_values(self, subject: str, attribute: str, since: int) -> tuple[list[str], int]:
        """The distinct values of the key's stored versions, and how the last instant at
        which one was recorded or retired compares with ``since`` (-1 before, 0 at, 1
        after; -1 for no version): what a dual read asks before it converts one version,
        without building the others."""
        ...
    def query(self, flt: QueryFilter) -> list[Version]: ...
    def operations(self, subject: str, attribute: str) -> list[Operation]: ...
    def declared(self, attribute: str) -> AttributeSchema | None: ...
    def member_keys(self, subject: str, prefix: str) -> list[str]:
        """Ledger attributes of the subject starting with ``prefix``, in code point order."""
        ...
    def holders(self, attribute: str, value: str, at: int, known_at: int | None, limit: int) -> list[Version]:
        """Versions of ledger attribute ``attribute`` with ``value`` holding at ``at``, by subject."""
        ...
    def members(self, subject: str, prefix: str, at: int, known_at: int | None) -> list[Version]:
        """Per member key under ``prefix``, the version holding at ``at`` (as ``get``)."""
        ...
    def holding(
        self, subjects: Sequence[str], attribute: str, at: int, known_at: int | None, *, members: bool = False,
    ) -> list[Version]:
        """Per subject, the version of key ``attribute`` (``members``: of each key under that
        prefix) holding at ``at``, by subject and key, in one statement per chunk."""
        ...
    def set_history(self, subject: str, prefix: str, known_at: int | None) -> list[Version]:
        """Every member's assertions by ``valid_from``, then by the value's JSON text."""
        ...


class LedgerWrites(Scope, Protocol):
    """A write's index lookups and row changes; ``apply_plan`` below combines two of them."""

    def lock_keys(self, keys: list[tuple[str, str]], since: list[int] | None = None) -> None:
        """Announce every key a batch will touch before it touches any, so a backend that
        locks per key can take the locks at once in a deadlock-free order (and prefetch).
        ``since``: per key, the earliest instant the batch will ask about; ``current`` may
        then hold only the versions from the second one starting at or before it on (all
        that the rules consult at that instant or later) instead of the key's whole
        timeline."""
        ...
    def prefetch_one(self, request: OneFactWrite) -> None:
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
    def relation_attributes(self) -> list[str]:
        """The tenant's attributes declared with type subject."""
        ...
    def keys_naming(self, attribute: str, value: str) -> list[tuple[str, str]]:
        """Keys of ``attribute`` (any timeline, any member) that ever held ``value``."""
        ...
    def attribute_in_use(self, attribute: str) -> bool:
        """Whether any key (a purpose's timeline, a set's member) is of ``attribute``."""
        ...
    def append_operation(self, op: Operation) -> int:
        """Store ``op`` (its ``seq`` is ignored) and return the sequence number it got."""
        ...
    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Store many operations; their sequence numbers follow the list's order."""
        ...
    def operations(self, subject: str, attribute: str) -> list[Operation]: ...


def apply_plan(txn: LedgerWrites, plan: Plan, recorded_at: int) -> None:
    """Retire ``plan.retire`` at ``recorded_at`` (dropping those recorded at that very
    instant) and insert ``plan.add`` as current versions."""
    txn.retire(plan.retire, recorded_at)
    if plan.add:
        txn.insert_versions(plan.add)


class ErasureWrites(Scope, Protocol):
    """What erasure needs beyond the ledger's writes: find, delete, re-derive."""

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]: ...
    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]: ...
    def delete_operations_of_subject(self, subject: str) -> int: ...
    def delete_operations_of_source(self, episode_id: str) -> int: ...
    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None: ...


# the extraction path and its jobs ------------------------------------------------------


class ExtractionReads(Scope, Protocol):
    def extractions(self, episode_id: str | None, limit: int) -> list[ExtractionRow]:
        """Extraction records, newest first, of one episode or of the whole tenant."""
        ...
    def extraction(self, seq: int) -> ExtractionRow | None: ...
    def held_candidates(self, status: str | None, limit: int) -> list[HeldRow]: ...
    def held(self, seq: int) -> HeldRow | None: ...
    def job(self, episode_id: str) -> JobRow | None: ...


class ExtractionWrites(Scope, Protocol):
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


# the lifecycle -------------------------------------------------------------------------


class LifecycleReads(Scope, Protocol):
    """Retention, consent, derivations and the audit log, read inside any unit of work."""

    def retention_classes(self) -> list[RetentionRow]: ...
    def lifecycle_due(self, now: int) -> bool:
        """Whether any write or episode of the tenant is past its deadline at ``now``
        (and not yet handled): one index probe per retention class."""
        ...
    def consents(self, subject: str | None) -> list[ConsentRow]:
        """The subject's consent statements, or (None) those of every subject that has any."""
        ...
    def consents_among(self, subjects: Sequence[str]) -> list[ConsentRow]:
        """The consent statements of any of ``subjects``, in one statement (per chunk):
        what a read filtering many values that name subjects needs."""
        ...
    def revoking_consents(self, uses: Sequence[str] | None = None) -> list[ConsentRow]:
        """The statements of every subject with a revoked one (among ``uses``, purposes
        with '' for every purpose; None: any): all a ``ConsentBook`` for those uses needs,
        since a subject without such a statement is consented."""
        ...
    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(derived episode, source episode) edges whose derived side is in ``episode_ids``."""
        ...
    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        """Episodes made directly from any of ``episode_ids``."""
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
    def tombstoned_among(self, digests: Sequence[str]) -> set[str]:
        """The tombstoned ones of ``digests``: one statement for a batch of episodes."""
        ...
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
    def delete_consents(self, rows: Sequence[ConsentRow]) -> int:
        """Delete these statements, each only as it was read (same purpose and seq)."""
        ...
    def record_audit(self, row: AuditRow) -> None: ...


# LangGraph store items (current state; the ledger keeps their history) -----------------


class ItemReads(Scope, Protocol):
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


class ItemWrites(Scope, Protocol):
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


# the action ledger ---------------------------------------------------------------------


class ActionReads(Scope, Protocol):
    def actions(self, status: str | None, limit: int) -> list[ActionRow]: ...
    def actions_of_thread(self, thread_id: str, limit: int) -> list[ActionRow]:
        """The actions made for a checkpoint thread, in the order they began."""
        ...


class ActionWrites(Scope, Protocol):
    def action(self, action_key: str) -> ActionRow | None: ...
    def insert_action(self, row: ActionRow) -> None: ...
    def update_action(self, row: ActionRow) -> None:
        """Store the status, result, error, attempts and finish time of ``row``."""
        ...


# document memory ----------------------------------------------------------------------


class DocumentAccess(Scope, Protocol):
    def documents(self) -> DocumentStore:
        """The tenant's document memory in this read or unit of work."""
        ...


# the network surfaces: API keys and idempotent requests (rows in ``_access.py``) ------


class AccessReads(Scope, Protocol):
    def api_key(self, key_id: str) -> ApiKeyRow | None: ...
    def api_keys(self) -> list[ApiKeyRow]: ...


class AccessWrites(Scope, Protocol):
    def api_key(self, key_id: str) -> ApiKeyRow | None: ...
    def insert_api_key(self, row: ApiKeyRow) -> None: ...
    def revoke_api_key(self, key_id: str, revoked_at: int) -> None: ...
    def idempotency(self, key: str) -> IdempotencyRow | None: ...
    def reserve_idempotency(self, key: str, request_digest: str, created_at: int, attempt: str) -> bool: ...
    def take_over_idempotency(self, key: str, abandoned: str, attempt: str, created_at: int) -> bool: ...
    def claim_idempotency(self, key: str, attempt: str, acted_at: int) -> bool: ...
    def finish_idempotency(self, key: str, attempt: str, status: int, response: str) -> None: ...
    def release_idempotency(self, key: str, attempt: str) -> bool: ...
    def expire_idempotency(self, before: int) -> None: ...
    def idempotency_responses_naming(self, needles: Sequence[str]) -> list[IdempotencyRow]: ...
    def redact_idempotency(self, keys: Sequence[str], erased_at: int, acting: str | None = None) -> None: ...


# checkpoint memory ----------------------------------------------------------------------


class CheckpointCapability(Scope, Protocol):
    def checkpoints(self) -> CheckpointRecords:
        """The tenant's LangGraph checkpoints in this unit of work or read."""
        ...


class CheckpointWriter(Protocol):
    """A backend's one-call path for a checkpoint put and for a task's pending writes,
    each its own transaction without a unit of work around it. Each method stores and
    commits in one round trip and answers True, or answers False having stored nothing:
    the case is not one call's (an idempotent attempt to mark, a key still to check) or
    the failure is one a retry may cure; the caller then runs the same
    rows in a unit of work, which retries. The caller has checked that ``retention``
    names a class of the tenant."""

    tenant: str

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> bool: ...
    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> bool: ...


class SubjectReads(Scope, Protocol):
    """Display names of subject ids, the stored ids the normalisation left as they were,
    and aliases: what a name means at a transaction time."""

    def display_names(self, subjects: Sequence[str]) -> dict[str, str]: ...
    def subjects_among(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` that are the subject of a key of the tenant."""
        ...
    def values_named(self, pairs: Sequence[tuple[str, str]]) -> set[str]:
        """The values of those (ledger attribute, canonical JSON value) pairs some version holds."""
        ...
    def subject_collisions(self, subject: str | None = None) -> list[tuple[str, str]]:
        """(normalised id, stored id) pairs the subject migration reported."""
        ...
    def resolve_subject(self, name: str, known_at: int | None = None) -> str:
        """The subject ``name`` means at ``known_at`` (default now), aliases followed."""
        ...
    def names_meaning(self, subject: str, known_at: int | None = None) -> list[str]:
        """The other names meaning ``subject`` at ``known_at`` (default now)."""
        ...
    def resolve_subjects(self, names: Sequence[str]) -> dict[str, str]:
        """What each aliased one of ``names`` means now (names that are no alias are left out)."""
        ...
    def alias_steps(self) -> list[AliasRow]: ...
    def resolve_attribute(self, name: str, known_at: int | None = None) -> str:
        """The attribute ``name`` means at ``known_at`` (default now), renames followed."""
        ...
    def ledger_changes(self) -> list[ChangeRow]: ...
    def quarantined(self, attribute: str | None = None) -> list[QuarantineRow]: ...
    def operations_of_subjects(self, names: Sequence[str]) -> list[Operation]: ...
    def backfills(self) -> list[BackfillRow]:
        """Every backfill of a migration step, finished or not, by step."""
        ...
    def unfinished_backfills(self) -> list[BackfillRow]:
        """The backfills not finished yet (a read of a subject after one's
        ``after_subject`` converts on the fly); most tenants have none."""
        ...
    def holdout(self, seq: int, subject: str) -> bool | None:
        """Whether backfill ``seq``'s screening set ``subject`` aside (its key holds a
        value a read cannot convert alone); None while the values are not screened yet."""
        ...
    def converted_values(self, seqs: Sequence[int]) -> list[ConvertedRow]:
        """What memory type conversions made of the operations ``seqs``, by step."""
        ...
    def attributes_of_memory_type(self, memory_type: str) -> list[str]:
        """The ledger attributes holding operations of ``memory_type``."""
        ...


class SubjectWrites(SubjectReads, Protocol):
    def note_spellings(self, spellings: Sequence[tuple[str, str]]) -> None:
        """(subject id, spelling): the first spelling recorded for an id is kept."""
        ...
    def delete_names_of_subject(self, subject: str) -> int: ...
    def last_operation_seq(self) -> int: ...
    def add_alias(self, row: AliasRow) -> None: ...
    def end_alias(self, seq: int, step: int, ended_at: int, ended_after_seq: int) -> None: ...
    def current_resolution(self) -> dict[str, str]: ...
    def resolve_names(self, changes: dict[str, str | None], at: int) -> None:
        """From ``at`` on each name means its value (None: itself)."""
        ...
    def version_keys(self, subjects: Sequence[str]) -> list[tuple[str, str]]: ...
    def delete_aliases_naming(self, names: Sequence[str]) -> int: ...
    def current_attribute_resolution(self) -> dict[str, str]: ...
    def resolve_attribute_names(self, changes: dict[str, str | None], at: int) -> None: ...
    def add_change(self, row: ChangeRow) -> None: ...
    def operations_of_attributes(self, attributes: Sequence[str]) -> list[Operation]: ...
    def attribute_version_keys(self, attributes: Sequence[str]) -> list[tuple[str, str]]: ...
    def replace_quarantine(self, seqs: Sequence[int], rows: Sequence[QuarantineRow]) -> None: ...
    def add_converted_values(self, rows: Sequence[ConvertedRow]) -> None: ...
    def delete_attribute_schema(self, attribute: str) -> None: ...
    def add_backfill(self, row: BackfillRow) -> None: ...
    def rewrite_retype(self, seq: int, detail: str, conversion: str | None) -> None:
        """Erasure: store a retype step's ``detail`` (and its backfill's ``conversion``)
        without the map pairs of erased values."""
        ...
    def claim_backfill(self, seq: int) -> BackfillRow | None:
        """Backfill ``seq``'s row, no other transaction's to change until this one ends: two
        processes running one backfill take its batches in turn, never one twice."""
        ...
    def advance_backfill(self, row: BackfillRow) -> None:
        """Store ``row``'s progress (last subject, counts, finished: its holdouts go)."""
        ...
    def attribute_values(self, attribute: str, after: tuple[str, str, str] | None,
                         limit: int) -> list[tuple[str, str, str]]:
        """Up to ``limit`` (attribute, value, subject) of the versions, in any transaction
        time, of ``attribute`` and its purposes' timelines, after ``after`` in that order;
        values too long for the by-value index are left out (``long_value_subjects``)."""
        ...
    def long_value_subjects(self, attribute: str) -> list[str]:
        """Subjects with a version too long for the by-value index, of ``attribute`` or
        its purposes' timelines."""
        ...
    def add_holdouts(self, seq: int, subjects: Sequence[str], screened_at: int) -> None:
        """Record backfill ``seq``'s screening: ``subjects`` set aside, done at ``screened_at``."""
        ...
    def delete_holdouts(self, subjects: Sequence[str]) -> None:
        """Forget ``subjects`` in every backfill's holdouts (an erasure)."""
        ...
    def family_subjects(self, attributes: Sequence[str], after: str | None, limit: int) -> list[str]:
        """Up to ``limit`` subjects with an operation of ``attributes`` (their purposes and
        members too), after ``after``, in order."""
        ...
    def family_subject_before(self, attributes: Sequence[str], subject: str) -> str | None:
        """The last subject of ``family_subjects``'s order before ``subject``, if any."""
        ...
    def count_family_subjects(self, attributes: Sequence[str]) -> int: ...
    def count_family_operations(self, attributes: Sequence[str]) -> int: ...
    def last_recorded_of_attributes(self, attributes: Sequence[str]) -> int | None:
        """The latest transaction time of an operation of ``attributes``."""
        ...
    def lock_subjects(self, subjects: Sequence[str]) -> None:
        """Hold ``subjects`` against concurrent writes and erasure until the commit."""
        ...


# a tenant's rows as stored, for export and import ----------------------------------------


class PortableRowStore(Scope, Protocol):
    """The tenant's rows table by table (``_sql/portable.py``), as an export reads and an
    import writes them; see ``PortableRows``."""

    def table_rows(self, table: PortableTable, page: int = ...) -> Iterator[Row]: ...
    def count_rows(self, table: PortableTable) -> int: ...
    def tables_holding_rows(self, tables: Sequence[PortableTable]) -> list[str]: ...
    def operation_rank(self, seq: int) -> int: ...
    def operation_numbers(self) -> tuple[int, int]: ...
    def renders(self, table: PortableTable, operations: int | None) -> bool: ...
    def record_lines(self, table: PortableTable, operations: int | None, page: int) -> Iterator[list[Row]]: ...
    def stored_row(self, table: PortableTable, key: Sequence[Any]) -> Row: ...
    def insert_table_rows(self, table: PortableTable, rows: Sequence[Sequence[Any]]) -> None: ...
    def insert_generated_row(self, table: PortableTable, row: Sequence[Any]) -> int: ...
    def delete_tenant_rows(self, tables: Sequence[PortableTable]) -> int: ...
    def reserve_operation_seqs(self, count: int) -> range: ...
    def imported(self) -> None: ...


class PortableAccess(Scope, Protocol):
    def portable(self) -> PortableRowStore:
        """The tenant's stored rows in this read or unit of work."""
        ...


# the whole ------------------------------------------------------------------------------


class WriteTransaction(
    EpisodeWrites, SchemaWrites, LedgerWrites, ErasureWrites, ExtractionWrites, LifecycleWrites, ItemWrites,
    ActionWrites, AccessWrites, DocumentAccess, CheckpointCapability, SubjectWrites, PortableAccess, Protocol,
):
    """One tenant's write unit of work; everything it does commits or rolls back together."""

    acting_for: Attempt | None
    """The idempotent attempt the unit of work acts for (``_acting.py``), if any."""


class Reader(
    EpisodeReads, SchemaReads, LedgerReads, ExtractionReads, LifecycleReads, ItemReads, ActionReads, AccessReads,
    DocumentAccess, CheckpointCapability, SubjectReads, PortableAccess, Protocol,
):
    """Reads scoped to one tenant; every one is an index lookup or an index range."""

    def episodes(self, session: str | None, limit: int, newest_first: bool = False) -> list[EpisodeRow]: ...
    def prefetch(self, requests: Sequence[ReadAhead]) -> None:
        """A hint: the reads ``requests`` name will be made in this read, with those
        arguments. A backend with round trips may send their statements now, to travel
        with the next one it waits for, and answer the reads from what came back."""
        ...
