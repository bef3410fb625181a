"""``Memory``: the public library API. Every call names its tenant; surfaces wrap this."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel

from .. import portability
from .._core.errors import ValidationError
from .._core.model import Assertion, Fact, ForgetResult, Page, WriteResult
from .._core.purpose import check_purpose
from .._core.rules import OpKind
from .._core.secret import Digests
from .._core.time import Clock, Moment, moment_micros, optional_micros, utc_now
from .._core.values import (
    MAX_BATCH,
    check_batch,
    check_limit,
    check_name,
    check_optional_name,
    check_optional_subject,
    check_subject,
    check_tenant,
)
from ..boundary.cursor import decode_cursor, encode_cursor
from ..documents.lifecycle import DocumentRevisions
from ..extraction.lifecycle import ExtractionRecords
from ..items.lifecycle import StoreItems
from ..ledger import reads
from ..ledger.service import Ledger
from ..ledger.write import PendingOp, WriteService, fact_to_pending, validate_op
from ..lifecycle.checkpoints import CheckpointThreads
from ..lifecycle.erasure import forget_episode, forget_subject
from ..lifecycle.participants import Erased, Participant
from ..lifecycle.responses import StoredResponses
from ..portability import ExportSummary, ImportSummary, MoveSummary, Progress
from ..search import SearchService, embedder_from_env
from ..search.embedders import Embedder
from ..store import Backend, CallContext, QueryFilter, open_backend
from .episodes import EpisodeCalls
from .extraction import ExtractionCalls
from .lifecycle import Lifecycle
from .recall import RecallCalls
from .schema import SchemaCalls
from .shape import ShapeCalls

if TYPE_CHECKING:
    from ..documents import Documents

DEFAULT_URL = "sqlite:///./sgam.db"


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


PARTICIPANTS: tuple[Participant, ...] = (
    StoreItems(), DocumentRevisions(), ExtractionRecords(), CheckpointThreads(), StoredResponses(),
)
"""The features whose data erasure and expiry reach (``sgam.lifecycle.participants``):
store items past their deadline, document revisions built on an episode, extraction
records quoting one, checkpoint threads naming or holding what was erased (and their
retention), stored responses quoting it."""


class Memory:
    """A bitemporal, tenant-scoped memory ledger.

    ``Memory("sqlite:///./sgam.db")`` opens (and migrates) the embedded default;
    ``postgresql://`` URLs open the server backend. ``clock`` supplies transaction time;
    replays and tests pass a fixed one. ``embedder`` (default none: keyword search only)
    adds vector search. ``erasure_key`` keys the digests of erasure records and tombstones
    (default: see ``sgam._core.secret``). The constructor takes no configuration from the
    environment; ``from_env`` does, for processes configured that way (the CLI, ``sgam serve``).

    The ledger's fact writes, reads and erasures are its own surface (arguments checked
    here, the reads themselves in ``sgam.ledger.reads``); the rest it delegates, method
    for method, to its parts (``memory/episodes.py``, ``lifecycle.py``, ``schema.py``,
    ``shape.py``, ``recall.py``, ``extraction.py``), each built on the same ``Ledger``.
    """

    def __init__(
        self, url: str | None = None, *, clock: Clock = utc_now, backend: Backend | None = None,
        embedder: Embedder | None = None, erasure_key: bytes | None = None,
    ) -> None:
        store = backend if backend is not None else open_backend(url if url is not None else DEFAULT_URL)
        self._models: dict[tuple[str, str], type[BaseModel]] = {}
        self.ledger = Ledger(store, WriteService(clock, self._models, Digests(store.url, erasure_key)),
                             SearchService(store, embedder), PARTICIPANTS)
        self._attach_parts(self.ledger)

    def _attach_parts(self, ledger: Ledger) -> None:
        """Build every part over ``ledger``: a view bound to a call context gets parts of its own."""
        self.ledger = ledger
        self._lifecycle = Lifecycle(ledger)
        self._schema = SchemaCalls(ledger, self._models)
        self._shape = ShapeCalls(ledger)
        self._recall = RecallCalls(ledger)
        self._extraction = ExtractionCalls(ledger)
        self._episodes = EpisodeCalls(ledger)

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

    # episodes: recorded, then read as consent allows (``memory/episodes.py``)
    add_episode = _delegate("_episodes", EpisodeCalls.add_episode)
    add_episodes = _delegate("_episodes", EpisodeCalls.add_episodes)
    episode = _delegate("_episodes", EpisodeCalls.episode)
    episodes = _delegate("_episodes", EpisodeCalls.episodes)
    derived_episodes = _delegate("_episodes", EpisodeCalls.derived_episodes)

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

    # the declared schema, rename and retype as recorded steps, the quarantine, the history of
    # steps, backfills (``memory/schema.py``)
    declare = _delegate("_schema", SchemaCalls.declare)
    register_memory_type = _delegate("_schema", SchemaCalls.register_memory_type)
    schema = _delegate("_schema", SchemaCalls.schema)
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
        view._attach_parts(self.ledger.bound(context))
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
        batch = [fact_to_pending(index, fact) for index, fact in enumerate(check_batch(facts, "facts"))]
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
        unreadable file. Search vectors are not carried: with an embedder, this store's
        are built for the imported episodes, facts and document chunks once the import has
        committed (``index_episodes`` finishes what a failure there leaves)."""
        summary = portability.import_tenant(self.ledger, tenant, path, progress=progress)
        self._index_imported(summary.tenant)
        return summary

    def _index_imported(self, tenant: str) -> None:
        """An imported tenant's vectors, made by this store's embedder if it has one."""
        if self.ledger.search.embedder is not None:
            self.index_episodes(tenant)
            self.documents.index(tenant)

    def move_tenant(self, tenant: str, to: Memory, *, erase_source: bool = False, threads: bool = True,
                    progress: Progress | None = None) -> MoveSummary:
        """Export ``tenant``, import it into ``to``, verify that ``to`` exports the same
        records, and only then, with ``erase_source``, delete it here; ``to`` builds its
        vectors as an import does."""
        moved = portability.move_tenant(self.ledger, to.ledger, tenant, erase_source=erase_source,
                                        threads=threads, progress=progress)
        to._index_imported(tenant)
        return moved

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
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        scope = check_purpose(purpose)
        moment = self._moment(at, "at")
        known = optional_micros(known_at, "known_at")
        return reads.point(self.ledger, tenant, subject, attribute, moment, known, scope, sets=sets)

    def history(
        self, tenant: str, subject: str, attribute: str, *, known_at: Moment | None = None,
        purpose: str | None = None,
    ) -> list[Assertion]:
        """Every assertion of the key's timeline (the general one, or ``purpose``'s) as the
        ledger stood at ``known_at``, by ``valid_from``. Of a set (cardinality many):
        every member's assertions, by ``valid_from`` and then by the value's JSON text."""
        known = optional_micros(known_at, "known_at")
        scope = check_purpose(purpose)
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        return reads.history(self.ledger, tenant, subject, attribute, known, scope)

    def versions(self, tenant: str, subject: str, attribute: str, *, purpose: str | None = None) -> list[Assertion]:
        """The full bitemporal record of a key's timeline: every version ever visible. Of
        a set (cardinality many): every version of every member, member by member. A
        relation's versions naming a subject whose consent is revoked are left out, as
        every read leaves them out."""
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        return reads.versions(self.ledger, tenant, subject, attribute, check_purpose(purpose))

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
        found, following = reads.query(self.ledger, tenant, flt, size)
        return Page(found, None if following is None else encode_cursor(*following))

    def _moment(self, value: Moment | None, field: str) -> int:
        return moment_micros(self.clock, value, field)
