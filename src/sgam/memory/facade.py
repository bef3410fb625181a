"""``Memory``: the public library API. Every call names its tenant; surfaces wrap this."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel

from .. import portability
from .._core.errors import NotFoundError, ValidationError
from .._core.model import Assertion, Episode, Fact, ForgetResult, Page, WriteResult
from .._core.purpose import MEMBER, allowed, check_purpose, consent_uses, ledger_attribute, split_attribute
from .._core.rules import OpKind, Version
from .._core.schema import (
    BUILTIN_MEMORY_TYPES,
    AttributeSchema,
    Cardinality,
    MemoryTypeSchema,
    ValueType,
    parse_cardinality,
    parse_value_type,
)
from .._core.secret import Digests
from .._core.time import Clock, Moment, moment_micros, optional_micros, utc_now
from .._core.values import (
    MAX_METADATA_BYTES,
    check_limit,
    check_name,
    check_optional_name,
    check_optional_subject,
    check_subject,
    check_tenant,
    check_text,
)
from ..boundary.cursor import decode_cursor, encode_cursor
from ..documents.lifecycle import DocumentRevisions
from ..extraction.lifecycle import ExtractionRecords
from ..items.lifecycle import StoreItems
from ..ledger import model_versions
from ..ledger.model_versions import Conversion
from ..ledger.records import sources_of, to_assertion, to_assertions, to_episode
from ..ledger.relations import consent_book, is_relation, named, visible_versions
from ..ledger.schema_at import cardinality_at, schema_at
from ..ledger.service import Ledger
from ..ledger.sets import member_versions
from ..ledger.write import (
    PendingOp,
    WriteService,
    fact_to_pending,
    validate_derived_from,
    validate_episode,
    validate_op,
)
from ..lifecycle.checkpoints import CheckpointThreads
from ..lifecycle.erasure import forget_episode, forget_subject
from ..lifecycle.participants import Erased, Participant
from ..portability import ExportSummary, ImportSummary, MoveSummary, Progress
from ..search import SearchService, embedder_from_env
from ..search.embedders import Embedder
from ..search.scope import about_revoked
from ..search.service import Embedded
from ..store import (
    AttributeMeaning,
    Backend,
    CallContext,
    Consents,
    EpisodeRow,
    Holding,
    QueryFilter,
    ReadAhead,
    Reader,
    SubjectMeaning,
    WriteTransaction,
    open_backend,
)
from .extraction import ExtractionCalls
from .lifecycle import Lifecycle
from .recall import RecallCalls
from .schema import SchemaCalls, check_backfill, check_wait
from .shape import ShapeCalls

if TYPE_CHECKING:
    from ..documents import Documents

DEFAULT_URL = "sqlite:///./sgam.db"
MAX_BATCH = 100_000


def default_url() -> str:
    """The database URL from ``SGAM_DATABASE_URL``, else ``sqlite:///./sgam.db``."""
    return os.environ.get("SGAM_DATABASE_URL", DEFAULT_URL)


def redacted(url: str) -> str:
    """The URL without its password, fit to print."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


Part = TypeVar("Part")
P = ParamSpec("P")
R = TypeVar("R")


def _delegate(part: str, method: Callable[Concatenate[Part, P], R]) -> Callable[Concatenate[Memory, P], R]:
    """A ``Memory`` method that calls ``method`` on its part named ``part``: same
    arguments, result, errors and docstring."""

    @functools.wraps(method)
    def call(self: Memory, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(getattr(self, part), *args, **kwargs)

    return call


PARTICIPANTS: tuple[Participant, ...] = (StoreItems(), DocumentRevisions(), ExtractionRecords(), CheckpointThreads())
"""The features whose data erasure and expiry reach (``sgam.lifecycle.participants``):
store items past their deadline, document revisions built on an episode, extraction
records quoting one."""


class Memory:
    """A bitemporal, tenant-scoped memory ledger.

    ``Memory("sqlite:///./sgam.db")`` opens (and migrates) the embedded default;
    ``postgresql://`` URLs open the server backend. ``clock`` supplies transaction time;
    replays and tests pass a fixed one. ``embedder`` (default none: keyword search only)
    adds vector search. ``erasure_key`` keys the digests of erasure records and tombstones
    (default: see ``sgam._core.secret``). The constructor takes no configuration from the
    environment; ``from_env`` does, for processes configured that way (the CLI, ``sgam serve``).

    The ledger's reads and writes are its own; the rest it delegates, method for method,
    to its parts (``memory/lifecycle.py``, ``schema.py``, ``shape.py``, ``recall.py``,
    ``extraction.py``), each built on the same ``Ledger``.
    """

    def __init__(
        self, url: str | None = None, *, clock: Clock = utc_now, backend: Backend | None = None,
        embedder: Embedder | None = None, erasure_key: bytes | None = None,
    ) -> None:
        store = backend if backend is not None else open_backend(url if url is not None else DEFAULT_URL)
        self._models: dict[tuple[str, str], type[BaseModel]] = {}
        self.ledger = Ledger(store, WriteService(clock, self._models, Digests(store.url, erasure_key)),
                             SearchService(store, embedder), PARTICIPANTS)
        self._lifecycle = Lifecycle(self.ledger)
        self._schema = SchemaCalls(self.ledger)
        self._shape = ShapeCalls(self.ledger)
        self._recall = RecallCalls(self.ledger)
        self._extraction = ExtractionCalls(self.ledger)

    @classmethod
    def from_env(
        cls, url: str | None = None, *, clock: Clock = utc_now, embedder: Embedder | None = None,
        erasure_key: bytes | None = None,
    ) -> Memory:
        """A ``Memory`` configured by the environment where an argument is not given: the
        URL from ``SGAM_DATABASE_URL`` (else ``sqlite:///./sgam.db``), the embedder from
        ``SGAM_EMBEDDER`` (else none)."""
        chosen = embedder if embedder is not None else embedder_from_env()
        return cls(url if url is not None else default_url(), clock=clock, embedder=chosen, erasure_key=erasure_key)

    # retention, consent, purge, residue and the audit log (``memory/lifecycle.py``)
    preview_forget = _delegate("_lifecycle", Lifecycle.preview_forget)
    retention = _delegate("_lifecycle", Lifecycle.retention)
    retention_classes = _delegate("_lifecycle", Lifecycle.retention_classes)
    retention_report = _delegate("_lifecycle", Lifecycle.retention_report)
    consent = _delegate("_lifecycle", Lifecycle.consent)
    consented = _delegate("_lifecycle", Lifecycle.consented)
    consents = _delegate("_lifecycle", Lifecycle.consents)
    purge = _delegate("_lifecycle", Lifecycle.purge)
    residue = _delegate("_lifecycle", Lifecycle.residue)
    audit = _delegate("_lifecycle", Lifecycle.audit)

    # rename and retype as recorded steps, the quarantine, the history of steps, backfills (``memory/schema.py``)
    rename_attribute = _delegate("_schema", SchemaCalls.rename_attribute)
    retype = _delegate("_schema", SchemaCalls.retype)
    quarantined = _delegate("_schema", SchemaCalls.quarantined)
    schema_history = _delegate("_schema", SchemaCalls.schema_history)
    backfills = _delegate("_schema", SchemaCalls.backfills)
    backfill = _delegate("_schema", SchemaCalls.backfill)
    run_backfill = _delegate("_schema", SchemaCalls.run_backfill)

    # names, aliases, sets and relations (``memory/shape.py``)
    display_names = _delegate("_shape", ShapeCalls.display_names)
    members = _delegate("_shape", ShapeCalls.members)
    linked = _delegate("_shape", ShapeCalls.linked)
    reachable = _delegate("_shape", ShapeCalls.reachable)
    alias = _delegate("_shape", ShapeCalls.alias)
    unalias = _delegate("_shape", ShapeCalls.unalias)
    names = _delegate("_shape", ShapeCalls.names)
    resolve = _delegate("_shape", ShapeCalls.resolve)
    subject_collisions = _delegate("_shape", ShapeCalls.subject_collisions)

    # search, recall and document memory (``memory/recall.py``)
    @property
    def documents(self) -> Documents:
        return self._recall.documents

    search = _delegate("_recall", RecallCalls.search)
    search_many = _delegate("_recall", RecallCalls.search_many)
    index_episodes = _delegate("_recall", RecallCalls.index_episodes)
    reembed = _delegate("_recall", RecallCalls.reembed)
    index_status = _delegate("_recall", RecallCalls.index_status)
    recall = _delegate("_recall", RecallCalls.recall)

    # extraction, review and actions run at most once (``memory/extraction.py``)
    remember = _delegate("_extraction", ExtractionCalls.remember)
    extract = _delegate("_extraction", ExtractionCalls.extract)
    extractions = _delegate("_extraction", ExtractionCalls.extractions)
    extraction = _delegate("_extraction", ExtractionCalls.extraction)
    held = _delegate("_extraction", ExtractionCalls.held)
    confirm = _delegate("_extraction", ExtractionCalls.confirm)
    reject = _delegate("_extraction", ExtractionCalls.reject)
    once = _delegate("_extraction", ExtractionCalls.once)
    actions = _delegate("_extraction", ExtractionCalls.actions)

    def bound(self, context: CallContext) -> Memory:
        """This memory for one call made with ``context`` (the API key its store checks,
        the idempotent attempt its writes act for): a light view sharing the store, its
        caches and the embedder, as a surface makes one per request. Closing it closes
        nothing."""
        if not isinstance(context, CallContext):
            raise ValidationError("context", context, "must be a CallContext")
        view = Memory.__new__(Memory)
        view.__dict__.update(self.__dict__)
        view.ledger = self.ledger.bound(context)
        view._lifecycle = Lifecycle(view.ledger)
        view._schema = SchemaCalls(view.ledger)
        view._shape = ShapeCalls(view.ledger)
        view._recall = RecallCalls(view.ledger)
        view._extraction = ExtractionCalls(view.ledger)
        return view

    @property
    def backend(self) -> Backend:
        return self.ledger.backend

    @property
    def _writes(self) -> WriteService:
        return self.ledger.writes

    @property
    def _search(self) -> SearchService:
        return self.ledger.search

    @property
    def clock(self) -> Clock:
        return self.ledger.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self._writes.clock = clock

    def close(self) -> None:
        self.backend.close()

    def __repr__(self) -> str:
        embedder = self._search.embedder
        return (f"Memory({redacted(getattr(self.backend, 'url', type(self.backend).__name__))!r}, "
                f"embedder={None if embedder is None else embedder.name!r})")

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # schema ---------------------------------------------------------------------------

    def declare(
        self, tenant: str, attribute: str, value_type: ValueType | str | None, *,
        memory_type: str | None = None, sensitive: bool = False, description: str | None = None,
        cardinality: Cardinality | str | None = None,
    ) -> AttributeSchema:
        """Declare an attribute's value type (and optionally memory type, sensitivity,
        ``cardinality``: ``one``, or ``many`` for a set whose members each have their own
        timeline; None keeps what the attribute had, default one); later writes of other
        types are rejected. Bumps the tenant's schema version."""
        check_tenant(tenant)
        chosen = None if cardinality is None else parse_cardinality(cardinality)
        if not isinstance(sensitive, bool):
            raise ValidationError("sensitive", sensitive, "must be true or false")
        schema = AttributeSchema(
            attribute=check_name(attribute, "attribute"),
            value_type=None if value_type is None else parse_value_type(value_type),
            memory_type=check_optional_name(memory_type, "memory_type"),
            sensitive=bool(sensitive),
            description=None if description is None else check_text(description, "description", MAX_METADATA_BYTES),
        )
        return self.ledger.run_write(tenant, lambda txn: self._writes.declare(txn, schema, chosen), "declare")

    def register_memory_type(
        self, tenant: str, name: str, model: type[BaseModel], *, convert: Conversion | None = None,
        previous: type[BaseModel] | None = None, decided_by: str | None = None, origin: str | None = None,
        backfill: bool | None = None, wait: bool = True,
    ) -> MemoryTypeSchema:
        """Make ``name`` a typed memory type whose values must validate against ``model``.

        The model's JSON Schema is stored with the tenant's schema, so processes that do
        not have the model class still validate against it. A new version of a type that
        has stored values is a recorded step (``schema_history``): from now on in
        transaction time every value of the type, history included, reads as ``convert``
        makes it (the stored JSON as a dict, or an instance of ``previous`` when given ->
        a ``model`` instance or a dict); a value it fails on, or whose result ``model``
        refuses, is set aside (``quarantined``, with the reason). Without ``convert`` a
        stored value ``model`` refuses is a ``ValidationError`` naming the type, and
        nothing changes. ``backfill`` and ``wait``: as for ``retype`` (on a large type
        ``convert`` is called a batch of subjects at a time, and the stored versions are
        derived again by a backfill)."""
        check_tenant(tenant)
        check_name(name, "name")
        if name in BUILTIN_MEMORY_TYPES:
            raise ValidationError("name", name, "is a built-in memory type")
        for given, field in ((model, "model"), (previous, "previous")):
            if (given is not None or field == "model") and not (isinstance(given, type)
                                                                and issubclass(given, BaseModel)):
                raise ValidationError(field, given, "must be a pydantic BaseModel subclass")
        if convert is not None and not callable(convert):
            raise ValidationError("convert", convert, "must be a function: old value -> new value")
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        deferred = check_backfill(backfill)
        check_wait(wait)

        def register(txn: WriteTransaction) -> MemoryTypeSchema:
            return model_versions.register(txn, name, model, convert, previous, self.ledger.now(), who, where,
                                           backfill=deferred)

        registered = self.ledger.run_write(tenant, register, "register_memory_type")
        self._models[(tenant, name)] = model
        if wait:
            self._schema.run_backfill(tenant)
        return registered

    def schema(self, tenant: str) -> tuple[list[AttributeSchema], list[MemoryTypeSchema]]:
        with self.ledger.read(check_tenant(tenant), "schema") as reader:
            return reader.attribute_schemas(), reader.memory_types()

    # episodes -------------------------------------------------------------------------

    def add_episode(
        self, tenant: str, id: str, at: Moment, text: str, *, speaker: str | None = None,
        kind: str = "message", session: str | None = None, metadata: dict[str, Any] | None = None,
        retention: str = "default", derived_from: Iterable[str] | None = None,
    ) -> Episode:
        """Record a raw episode of retention class ``retention``, optionally made from
        other episodes (``derived_from``: erasing or expiring them reaches it too).
        Re-recording the same id with the same content is a no-op; with other content, or
        an id that was erased or expired, it is a ConflictError."""
        row = validate_episode(id, at, text, speaker, kind, session, metadata, check_tenant(tenant), retention)
        sources = validate_derived_from(derived_from)
        return self._add_rows(tenant, [(row, sources)])[0]

    def add_episodes(self, tenant: str, episodes: Iterable[Mapping[str, Any]]) -> list[Episode]:
        """Record many episodes (mappings with ``add_episode``'s argument names) in one
        transaction, embedded in one batch first; the error names the offending ``episodes[i]``."""
        check_tenant(tenant)
        items = [_episode_row(index, item, tenant) for index, item in enumerate(_batch(episodes, "episodes"))]
        if len(items) > MAX_BATCH:
            raise ValidationError("episodes", f"<{len(items)} episodes>", f"at most {MAX_BATCH} per batch")
        return self._add_rows(tenant, items) if items else []

    def _add_rows(self, tenant: str, items: list[tuple[EpisodeRow, tuple[str, ...]]]) -> list[Episode]:
        rows = [row for row, _ in items]

        def work(embedded: Embedded, txn: WriteTransaction) -> list[EpisodeRow]:
            txn.prefetch_episodes([row.episode_id for row in rows])
            stored = self._writes.add_episodes(txn, items)
            self._search.store_vectors(txn, rows, stored, embedded)
            return stored

        # the vectors are made before the transaction: a failing embedder changes nothing
        written = self._search.with_vectors(
            tenant, rows, lambda embedded: self.ledger.run_write(tenant, partial(work, embedded), "add_episode"))
        return [to_episode(row, sources) for row, (_, sources) in zip(written, items, strict=True)]

    def episode(self, tenant: str, id: str, *, purpose: str | None = None) -> Episode | None:
        """The episode if it can be read: recorded, not erased, not past its deadline, and
        not about a subject whose consent is revoked (for ``purpose``, or every purpose)."""
        scope = check_purpose(purpose)
        with self.ledger.read(check_tenant(tenant), "episode") as reader:
            row = reader.episode(check_name(id, "id"))
            if row is None or not row.readable or _hidden(reader, [row], scope):
                return None
            return to_episode(row, sources_of(reader, [row]).get(row.episode_id, ()))

    def episodes(
        self, tenant: str, *, session: str | None = None, limit: int = 100, purpose: str | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        """Up to ``limit`` readable episodes in recorded order (of a session: by time), or
        the latest ones first (``newest_first``), less those about a subject whose consent
        is revoked (for ``purpose``, or every purpose)."""
        scope = check_purpose(purpose)
        if not isinstance(newest_first, bool):
            raise ValidationError("newest_first", newest_first, "must be true or false")
        with self.ledger.read(check_tenant(tenant), "episodes") as reader:
            rows = [row for row in reader.episodes(check_optional_name(session, "session"), check_limit(limit),
                                                   newest_first) if row.readable]
            hidden = _hidden(reader, rows, scope)
            rows = [row for row in rows if row.episode_id not in hidden]
            sources = sources_of(reader, rows)
        return [to_episode(row, sources.get(row.episode_id, ())) for row in rows]

    def derived_episodes(self, tenant: str, id: str, *, purpose: str | None = None) -> list[Episode]:
        """The readable episodes made directly from episode ``id`` (a summary of it, say):
        what erasing or expiring ``id`` reaches next. NotFoundError if ``id`` cannot be read."""
        scope = check_purpose(purpose)
        with self.ledger.read(check_tenant(tenant), "derived_episodes") as reader:
            source = reader.episode(check_name(id, "id"))
            if source is None or not source.readable or _hidden(reader, [source], scope):
                raise NotFoundError(f"no episode {id!r}", field="id", value=id)
            rows = [row for row in map(reader.episode, reader.derived_of([id])) if row is not None and row.readable]
            hidden = _hidden(reader, rows, scope)
            rows = [row for row in rows if row.episode_id not in hidden]
            sources = sources_of(reader, rows)
        return [to_episode(row, sources.get(row.episode_id, ())) for row in rows]

    # writes ---------------------------------------------------------------------------

    def write(
        self, tenant: str, subject: str, attribute: str, value: Any, valid_from: Moment, source: str,
        *, memory_type: str | None = None, confidence: float = 1.0, purpose: str | None = None,
        expires_at: Moment | None = None,
    ) -> WriteResult:
        """Assert ``subject.attribute = value`` from ``valid_from`` on, backed by episode
        ``source``. Supersedes the value holding then; refuses a different value that
        starts at the same instant (ConflictError). ``purpose`` puts it on that purpose's
        timeline; at ``expires_at`` it is erased as if never recorded."""
        check_tenant(tenant)
        pending = validate_op(OpKind.WRITE, subject, attribute, valid_from, source, value, memory_type, confidence,
                              purpose=purpose, expires_at=expires_at)
        return self._apply(tenant, pending)

    def write_many(self, tenant: str, facts: Iterable[Fact | dict[str, Any]]) -> list[WriteResult]:
        """Commit many writes in one transaction: all of them, or none (the error names
        the offending ``facts[i]``)."""
        check_tenant(tenant)
        batch = [fact_to_pending(index, fact) for index, fact in enumerate(_batch(facts, "facts"))]
        if len(batch) > MAX_BATCH:
            raise ValidationError("facts", f"<{len(batch)} facts>", f"at most {MAX_BATCH} per batch")
        if not batch:
            return []
        applied = self.ledger.run_write(tenant, lambda txn: self._writes.apply_batch(txn, batch), "write_many")
        self.ledger.index_facts(tenant)
        return [self.ledger.result(tenant, item) for item in applied]

    def retract(
        self, tenant: str, subject: str, attribute: str, at: Moment, source: str, *, purpose: str | None = None,
        value: Any = None,
    ) -> WriteResult:
        """Say the value holding at ``at`` stopped holding then (NotFoundError if none).
        For a set (cardinality many) ``value`` names the member that stopped."""
        check_tenant(tenant)
        pending = validate_op(OpKind.RETRACT, subject, attribute, at, source, value, purpose=purpose)
        return self._apply(tenant, pending)

    def correct(
        self, tenant: str, subject: str, attribute: str, valid_from: Moment, value: Any, source: str,
        *, confidence: float = 1.0, purpose: str | None = None,
    ) -> WriteResult:
        """Replace, from now on in transaction time, the value of the assertion starting at
        ``valid_from``; reads with an earlier ``known_at`` still see the old value."""
        check_tenant(tenant)
        pending = validate_op(OpKind.CORRECT, subject, attribute, valid_from, source, value, None, confidence,
                              purpose=purpose)
        return self._apply(tenant, pending)

    def forget_subject(self, tenant: str, subject: str) -> ForgetResult:
        """Erase every assertion of ``subject`` (every purpose timeline, every version), as
        if never recorded. Consent stays as it stands: a revocation stays in force, so what
        was erased is not learned again until consent is granted."""
        check_tenant(tenant)
        subject = check_subject(subject, "subject")
        return self._erase(tenant, lambda txn: forget_subject(
            txn, subject, self._writes.now(), self.ledger.reach, "forget_subject"))

    def forget_episode(self, tenant: str, episode_id: str) -> ForgetResult:
        """Erase an episode, the episodes derived from it, and every operation they
        sourced; neighbours those operations had closed hold again, as if they had never
        been recorded. The id stays reserved (a tombstone: a keyed digest)."""
        check_tenant(tenant)
        episode_id = check_name(episode_id, "episode")
        return self._erase(tenant, lambda txn: forget_episode(
            txn, episode_id, self._writes.now(), self.ledger.reach, "forget_episode"))

    def _erase(self, tenant: str, work: Any) -> ForgetResult:
        erased: Erased = self.ledger.run_write(tenant, work, "forget")
        return ForgetResult(erased.operations, erased.episodes, erased.keys, residue=self.backend.purge_residue())

    # carrying a tenant to another store (docs/portability.md) ---------------------------

    def export_tenant(self, tenant: str, path: str | Path, *, threads: bool = True,
                      progress: Progress | None = None) -> ExportSummary:
        """Write everything ``tenant`` holds to ``path`` in the export format (``-``:
        standard output; a name ending ``.gz``: gzip), from one snapshot. ``threads=False``
        leaves LangGraph checkpoint threads out."""
        return portability.export_tenant(self.ledger, tenant, path, threads=threads, progress=progress)

    def export_subject(self, tenant: str, subject: str, path: str | Path, *,
                       progress: Progress | None = None) -> ExportSummary:
        """Write what ``tenant`` holds about ``subject`` to ``path``: its facts under every
        name it has had, other subjects' facts whose value names it, the episodes behind
        them, its names, aliases and consents (the answer to an access request; no import
        accepts it)."""
        return portability.export_subject(self.ledger, tenant, subject, path, progress=progress)

    def import_tenant(self, tenant: str, path: str | Path, *, progress: Progress | None = None) -> ImportSummary:
        """Recreate an exported tenant as ``tenant`` of this store, every transaction time
        as recorded, in one unit of work: ``ConflictError`` if the tenant holds anything,
        ``ValidationError`` (before anything is written) for a truncated, altered or
        unreadable file."""
        return portability.import_tenant(self.ledger, tenant, path, progress=progress)

    def move_tenant(self, tenant: str, to: Memory, *, erase_source: bool = False, threads: bool = True,
                    progress: Progress | None = None) -> MoveSummary:
        """Export ``tenant``, import it into ``to``, verify that ``to`` exports the same
        records, and only then, with ``erase_source``, delete it here."""
        return portability.move_tenant(self.ledger, to.ledger, tenant, erase_source=erase_source,
                                       threads=threads, progress=progress)

    def purge_residue(self, *, wait: float = 30.0) -> str | None:
        """Remove what erasures left outside live rows, waiting up to ``wait`` seconds for
        readers that block it (SQLite); None when nothing remains, else what and why."""
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= 3600:
            raise ValidationError("wait", wait, "must be a number of seconds from 0 to 3600")
        return self.backend.purge_residue(float(wait))

    def _apply(self, tenant: str, pending: PendingOp) -> WriteResult:
        return self.ledger.apply(tenant, pending)

    # reads ----------------------------------------------------------------------------

    def get(
        self, tenant: str, subject: str, attribute: str, *, at: Moment | None = None,
        known_at: Moment | None = None, purpose: str | None = None,
    ) -> Assertion | None:
        """The assertion holding at valid time ``at`` (default now) as the ledger stood at
        transaction time ``known_at`` (default: everything recorded). With ``purpose``,
        that purpose's timeline, falling back to the general one where it holds nothing;
        without, the general timeline only. Nothing while consent is revoked.

        A set (cardinality many) holds several values at once, so it has no one value to
        answer: ``get`` of one is a ``ValidationError`` naming ``members()``, which reads
        it (``lookup`` answers either shape)."""
        found = self._point(tenant, subject, attribute, at, known_at, purpose, sets=False)
        assert not isinstance(found, list)
        return found

    def lookup(
        self, tenant: str, subject: str, attribute: str, *, at: Moment | None = None,
        known_at: Moment | None = None, purpose: str | None = None,
    ) -> Assertion | list[Assertion] | None:
        """What holds for ``subject.attribute`` at ``at`` as known at ``known_at``, in the
        attribute's shape: as ``get`` for a one-valued attribute (the assertion, or None),
        as ``members`` for a set (a list, empty when no member holds). For a caller that
        names attributes it has not declared itself (``sgam get``, ``GET /v1/facts/…``)."""
        return self._point(tenant, subject, attribute, at, known_at, purpose, sets=True)

    def _point(
        self, tenant: str, subject: str, attribute: str, at: Moment | None, known_at: Moment | None,
        purpose: str | None, *, sets: bool,
    ) -> Assertion | list[Assertion] | None:
        """A key's point read. A set has no versions under its own key, so only a read
        that finds nothing asks whether the attribute is one (from the schema cache on
        SQLite, a statement on PostgreSQL): the read of a value costs what it did."""
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        scope = check_purpose(purpose)
        moment = self._moment(at, "at")
        known = optional_micros(known_at, "known_at")

        def general(reader: Reader, meant: str = subject, name: str = attribute) -> Version | None:
            return reader.get(meant, name, moment, known)

        def scoped(reader: Reader, meant: str = subject, name: str = attribute) -> Version | None:
            return None if scope is None else reader.get(meant, ledger_attribute(name, scope), moment, known)

        timelines = (attribute,) if scope is None else (ledger_attribute(attribute, scope), attribute)
        ahead: list[ReadAhead] = [Consents(subject), SubjectMeaning(subject, known), AttributeMeaning(attribute, known)]
        ahead += [Holding(subject, timeline, moment, known) for timeline in timelines]
        with self.ledger.read(tenant, "get", ahead) as reader:
            consented = allowed(reader.consents(subject), scope)
            meant = reader.resolve_subject(subject, known)
            name = reader.resolve_attribute(attribute, known)  # an attribute renamed by then
            version = (scoped(reader, meant, name) or general(reader, meant, name)) if consented else None
            if version is None:
                if cardinality_at(reader, name, known) is Cardinality.MANY:
                    if not sets:
                        raise ValidationError("attribute", attribute,
                                              "is a set (cardinality many): read its members with members()")
                    found = member_versions(reader, meant, name, moment, known, scope) if consented else []
                    return to_assertions(tenant, found)
                return None
            if version.value.startswith('"'):
                shown = visible_versions(reader, [version], scope, known)
                if not shown:
                    return None  # a relation naming a subject whose consent is revoked
                version = shown[0]
        return to_assertion(tenant, version)

    def history(
        self, tenant: str, subject: str, attribute: str, *, known_at: Moment | None = None,
        purpose: str | None = None,
    ) -> list[Assertion]:
        """Every assertion of the key's timeline (the general one, or ``purpose``'s) as the
        ledger stood at ``known_at``, by ``valid_from``. Of a set (cardinality many):
        every member's assertions, by ``valid_from`` and then by the value's JSON text."""
        known = optional_micros(known_at, "known_at")

        def read(reader: Reader, s: str, a: str) -> list[Version]:
            meant = reader.resolve_subject(s, known)
            found = _history(reader, meant, a, known)
            if not found:  # nothing under the name given: it may have been renamed by then
                base, purpose = split_attribute(a)
                renamed = reader.resolve_attribute(base, known)
                if renamed != base:
                    found = _history(reader, meant, ledger_attribute(renamed, purpose), known)
            return visible_versions(reader, found, scope, known)

        scope = check_purpose(purpose)

        return self._timeline(tenant, subject, attribute, purpose, "history", read)

    def versions(self, tenant: str, subject: str, attribute: str, *, purpose: str | None = None) -> list[Assertion]:
        """The full bitemporal record of a key's timeline: every version ever visible. Of
        a set (cardinality many): every version of every member, member by member. A
        relation's versions naming a subject whose consent is revoked are left out, as
        every read leaves them out."""

        def read(reader: Reader, s: str, a: str) -> list[Version]:
            meant = reader.resolve_subject(s)
            declared = reader.declared(split_attribute(a)[0])
            if declared is not None and declared.cardinality is Cardinality.MANY:
                members = reader.member_keys(meant, f"{a}{MEMBER}")
                found = [v for member in members for v in reader.versions(meant, member)]
            else:
                found = reader.versions(meant, a)
            return visible_versions(reader, found, check_purpose(purpose))

        return self._timeline(tenant, subject, attribute, purpose, "versions", read)

    def _timeline(
        self, tenant: str, subject: str, attribute: str, purpose: str | None, call: str,
        read: Callable[[Reader, str, str], list[Version]],
    ) -> list[Assertion]:
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        scope = check_purpose(purpose)
        with self.ledger.read(tenant, call) as reader:
            if not allowed(reader.consents(subject), scope):
                return []
            return [to_assertion(tenant, v) for v in read(reader, subject, ledger_attribute(attribute, scope))]

    def query(
        self, tenant: str, *, subject: str | None = None, attribute: str | None = None,
        memory_type: str | None = None, at: Moment | None = None, known_at: Moment | None = None,
        all_times: bool = False, limit: int = 100, cursor: str | None = None, purpose: str | None = None,
    ) -> Page[Assertion]:
        """Assertions of the tenant holding at ``at`` (default now), filtered, ordered by
        subject, attribute and valid_from; with ``all_times`` every valid interval. The
        page's ``next_cursor`` (None on the last page) passed as ``cursor`` continues it.
        ``purpose`` reads as ``get`` does: that timeline over the general one. A set's
        members are assertions too, each with the set's attribute: ``attribute=`` of a
        set lists its members (one range of its members' keys)."""
        check_tenant(tenant)
        if not isinstance(all_times, bool):
            raise ValidationError("all_times", all_times, "must be true or false")
        after = None if cursor is None else decode_cursor(cursor, (str, str, int))
        size = check_limit(limit)
        scope = check_purpose(purpose)
        flt = QueryFilter(
            subject=check_optional_subject(subject, "subject"),
            attribute=check_optional_name(attribute, "attribute"),
            memory_type=check_optional_name(memory_type, "memory_type"),
            at=None if all_times else self._moment(at, "at"),
            known_at=optional_micros(known_at, "known_at"),
            after=after,
            limit=size + 1,
            purpose=scope,
        )
        with self.ledger.read(tenant, "query") as reader:
            if flt.subject is not None:
                flt = replace(flt, subject=reader.resolve_subject(flt.subject, flt.known_at))
            if flt.attribute is not None:
                name = reader.resolve_attribute(flt.attribute, flt.known_at)  # an old name: the attribute's
                many = cardinality_at(reader, name, flt.known_at) is Cardinality.MANY
                flt = replace(flt, attribute=name, many=many)
            book = consent_book(reader, consent_uses(scope))
            versions = reader.query(flt)
            revoked = book.revoked_subjects(scope)
            if revoked:  # a relation naming a subject whose consent is revoked is not returned
                known = flt.known_at  # relations as they stood then
                relations = {s.attribute for s in reader.attribute_schemas()
                             if is_relation(s if known is None else schema_at(reader, s.attribute, known))}
                hidden = {id(v) for v in versions
                          if split_attribute(v.attribute)[0] in relations and named(v) in revoked}
        last = versions[size - 1] if len(versions) > size else None
        following = None if last is None else encode_cursor(last.subject, last.attribute, last.valid_from)
        found = [to_assertion(tenant, v) for v in versions[:size]
                 if book.allows(v.subject, scope) and (not revoked or id(v) not in hidden)]
        if scope is not None and flt.at is not None:
            scoped = {(a.subject, a.attribute) for a in found if a.purpose is not None}
            found = [a for a in found if a.purpose is not None or (a.subject, a.attribute) not in scoped]
        return Page(found, following)

    def _moment(self, value: Moment | None, field: str) -> int:
        return moment_micros(self.clock, value, field)


def _episode_row(index: int, item: Mapping[str, Any], tenant: str) -> tuple[EpisodeRow, tuple[str, ...]]:
    prefix = f"episodes[{index}]."
    if not isinstance(item, Mapping):
        raise ValidationError(f"episodes[{index}]", item, "must be a mapping")
    unknown = set(item) - {"id", "at", "text", "speaker", "kind", "session", "metadata", "retention", "derived_from"}
    if unknown:
        raise ValidationError(f"{prefix}{min(unknown)}", item, "unknown field")
    try:
        return (validate_episode(item.get("id"), item.get("at"), item.get("text"), item.get("speaker"),
                                 item.get("kind", "message"), item.get("session"), item.get("metadata"), tenant,
                                 item.get("retention", "default")),
                validate_derived_from(item.get("derived_from")))
    except ValidationError as exc:
        raise ValidationError(f"{prefix}{exc.field}", exc.value, exc.rule) from None


def _batch(items: object, field: str) -> Iterable[Any]:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise ValidationError(field, items, "must be a list (any iterable) of entries")
    return items


def _history(reader: Reader, subject: str, attribute: str, known: int | None) -> list[Version]:
    """A key's timeline as known at ``known``: a set's every member when the attribute
    held a set then (a cardinality change takes effect at its transaction time)."""
    if cardinality_at(reader, split_attribute(attribute)[0], known) is Cardinality.MANY:
        return reader.set_history(subject, f"{attribute}{MEMBER}", known)
    return reader.history(subject, attribute, known)


def _hidden(reader: Reader, rows: list[EpisodeRow], purpose: str | None) -> set[str]:
    """Ids of ``rows`` about a subject whose consent is revoked for ``purpose``."""
    revoked = consent_book(reader, consent_uses(purpose)).revoked_subjects(purpose)
    return about_revoked(reader, [(row.episode_id, row.speaker, row.text) for row in rows], revoked)
