"""``Memory``: the public library API. Every call names its tenant; surfaces wrap this."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ._actions import Action, Reconciled, actions, once
from ._erasure import forget_episode, forget_subject
from ._errors import ValidationError
from ._ledger import Ledger, to_assertion, to_episode
from ._model import Assertion, Episode, Fact, ForgetResult, WriteResult
from ._rules import OpKind
from ._schema import (
    BUILTIN_MEMORY_TYPES,
    AttributeSchema,
    MemoryTypeSchema,
    ValueType,
    parse_value_type,
)
from ._time import Clock, optional_micros, parse_timestamp, to_micros, utc_now
from ._values import MAX_METADATA_BYTES, check_name, check_optional_name, check_tenant, check_text
from ._write import PendingOp, WriteService, fact_to_pending, validate_episode, validate_op
from .recall import RecallResult, recall
from .search import EvidenceHit, SearchConfig, SearchFilter, SearchService, embedder_from_env, resolve_config
from .search.embedders import Embedder
from .store import Backend, EpisodeRow, QueryFilter, WriteTransaction, open_backend

if TYPE_CHECKING:
    from .documents import Documents
    from .extraction import Extraction, ExtractionPolicy, HeldCandidate, ModelClient, Remembered

DEFAULT_URL = "sqlite:///./sgam.db"
MAX_BATCH = 100_000
MAX_QUERY_LIMIT = 10_000
HELD_STATUSES = ("open", "confirmed", "rejected", "promoted")

Moment = datetime | str


def default_url() -> str:
    """The database URL from ``SGAM_DATABASE_URL``, else ``sqlite:///./sgam.db``."""
    return os.environ.get("SGAM_DATABASE_URL", DEFAULT_URL)


class Memory:
    """A bitemporal, tenant-scoped memory ledger.

    ``Memory("sqlite:///./sgam.db")`` opens (and migrates) the embedded default;
    ``postgresql://`` URLs open the server backend. ``clock`` supplies transaction time;
    replays and tests pass a fixed one. ``embedder`` (default: ``SGAM_EMBEDDER``, else
    none) adds vector search to keyword search.
    """

    def __init__(
        self, url: str | None = None, *, clock: Clock = utc_now, backend: Backend | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        store = backend if backend is not None else open_backend(url or default_url())
        self._models: dict[tuple[str, str], type[BaseModel]] = {}
        self.ledger = Ledger(
            store, WriteService(clock, self._models),
            SearchService(store, embedder if embedder is not None else embedder_from_env()),
        )
        self._documents: Documents | None = None

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

    @property
    def documents(self) -> Documents:
        """Document memory: each tenant's files under /memories, with revisions (``sgam.documents``)."""
        if self._documents is None:
            from .documents import Documents

            self._documents = Documents(self.backend, lambda: self.clock(), self._search.embedder)
        return self._documents

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # schema ---------------------------------------------------------------------------

    def declare(
        self, tenant: str, attribute: str, value_type: ValueType | str | None, *,
        memory_type: str | None = None, sensitive: bool = False, description: str | None = None,
    ) -> AttributeSchema:
        """Declare an attribute's value type (and optionally memory type, sensitivity);
        later writes of other types are rejected. Bumps the tenant's schema version."""
        check_tenant(tenant)
        if not isinstance(sensitive, bool):
            raise ValidationError("sensitive", sensitive, "must be true or false")
        schema = AttributeSchema(
            attribute=check_name(attribute, "attribute"),
            value_type=None if value_type is None else parse_value_type(value_type),
            memory_type=check_optional_name(memory_type, "memory_type"),
            sensitive=bool(sensitive),
            description=None if description is None else check_text(description, "description", MAX_METADATA_BYTES),
        )
        return self.backend.run_write(tenant, lambda txn: self._writes.declare(txn, schema))

    def register_memory_type(self, tenant: str, name: str, model: type[BaseModel]) -> MemoryTypeSchema:
        """Make ``name`` a typed memory type whose values must validate against ``model``.

        The model's JSON Schema is stored with the tenant's schema, so processes that do
        not have the model class still validate against it."""
        check_tenant(tenant)
        check_name(name, "name")
        if name in BUILTIN_MEMORY_TYPES:
            raise ValidationError("name", name, "is a built-in memory type")
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ValidationError("model", model, "must be a pydantic BaseModel subclass")

        def register(txn: WriteTransaction) -> MemoryTypeSchema:
            schema = MemoryTypeSchema(name, model.model_json_schema(), txn.bump_schema_version())
            txn.put_memory_type(schema)
            return schema

        registered = self.backend.run_write(tenant, register)
        self._models[(tenant, name)] = model
        return registered

    def schema(self, tenant: str) -> tuple[list[AttributeSchema], list[MemoryTypeSchema]]:
        with self.backend.read(check_tenant(tenant)) as reader:
            return reader.attribute_schemas(), reader.memory_types()

    # episodes -------------------------------------------------------------------------

    def add_episode(
        self, tenant: str, id: str, at: Moment, text: str, *, speaker: str | None = None,
        kind: str = "message", session: str | None = None, metadata: dict[str, Any] | None = None,
    ) -> Episode:
        """Record a raw episode. Re-recording the same id with the same content is a no-op;
        with other content it is a ConflictError."""
        row = validate_episode(id, at, text, speaker, kind, session, metadata, check_tenant(tenant))
        return self._add_rows(tenant, [row])[0]

    def add_episodes(self, tenant: str, episodes: Iterable[Mapping[str, Any]]) -> list[Episode]:
        """Record many episodes (mappings with ``add_episode``'s argument names) in one
        transaction, embedded in one batch first; the error names the offending ``episodes[i]``."""
        check_tenant(tenant)
        rows = [_episode_row(index, item, tenant) for index, item in enumerate(_batch(episodes, "episodes"))]
        if len(rows) > MAX_BATCH:
            raise ValidationError("episodes", f"<{len(rows)} episodes>", f"at most {MAX_BATCH} per batch")
        return self._add_rows(tenant, rows) if rows else []

    def _add_rows(self, tenant: str, rows: list[EpisodeRow]) -> list[Episode]:
        vectors = self._search.embed_rows(rows)  # before the transaction: a failure changes nothing

        def work(txn: WriteTransaction) -> list[EpisodeRow]:
            stored = [self._writes.add_episode(txn, row) for row in rows]
            self._search.store_vectors(txn, rows, stored, vectors)
            return stored

        return [to_episode(row) for row in self.backend.run_write(tenant, work)]

    def episode(self, tenant: str, id: str) -> Episode | None:
        with self.backend.read(check_tenant(tenant)) as reader:
            row = reader.episode(check_name(id, "id"))
        return None if row is None else to_episode(row)

    def episodes(self, tenant: str, *, session: str | None = None, limit: int = 100) -> list[Episode]:
        with self.backend.read(check_tenant(tenant)) as reader:
            return [to_episode(row) for row in reader.episodes(
                check_optional_name(session, "session"), _limit(limit))]

    # writes ---------------------------------------------------------------------------

    def write(
        self, tenant: str, subject: str, attribute: str, value: Any, valid_from: Moment, source: str,
        *, memory_type: str | None = None, confidence: float = 1.0,
    ) -> WriteResult:
        """Assert ``subject.attribute = value`` from ``valid_from`` on, backed by episode
        ``source``. Supersedes the value holding then; refuses a different value that
        starts at the same instant (ConflictError)."""
        check_tenant(tenant)
        pending = validate_op(OpKind.WRITE, subject, attribute, valid_from, source, value, memory_type, confidence)
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
        applied = self.backend.run_write(tenant, lambda txn: self._writes.apply_batch(txn, batch))
        self.ledger.index_facts(tenant)
        return [self.ledger.result(tenant, item) for item in applied]

    def retract(self, tenant: str, subject: str, attribute: str, at: Moment, source: str) -> WriteResult:
        """Say the value holding at ``at`` stopped holding then (NotFoundError if none)."""
        check_tenant(tenant)
        pending = validate_op(OpKind.RETRACT, subject, attribute, at, source)
        return self._apply(tenant, pending)

    def correct(
        self, tenant: str, subject: str, attribute: str, valid_from: Moment, value: Any, source: str,
        *, confidence: float = 1.0,
    ) -> WriteResult:
        """Replace, from now on in transaction time, the value of the assertion starting at
        ``valid_from``; reads with an earlier ``known_at`` still see the old value."""
        check_tenant(tenant)
        pending = validate_op(OpKind.CORRECT, subject, attribute, valid_from, source, value, None, confidence)
        return self._apply(tenant, pending)

    def forget_subject(self, tenant: str, subject: str) -> ForgetResult:
        """Erase every assertion of ``subject``, in every version, as if never recorded."""
        check_tenant(tenant)
        subject = check_name(subject, "subject")
        counts = self.backend.run_write(tenant, lambda txn: forget_subject(txn, subject, self._writes.now()))
        self.backend.purge_residue()
        return ForgetResult(*counts)

    def forget_episode(self, tenant: str, episode_id: str) -> ForgetResult:
        """Erase an episode and every operation it sourced; neighbours those operations
        had closed hold again, as if they had never been recorded."""
        check_tenant(tenant)
        episode_id = check_name(episode_id, "episode")
        counts = self.backend.run_write(tenant, lambda txn: forget_episode(txn, episode_id, self._writes.now()))
        self.backend.purge_residue()
        return ForgetResult(*counts)

    def _apply(self, tenant: str, pending: PendingOp) -> WriteResult:
        return self.ledger.apply(tenant, pending)

    # reads ----------------------------------------------------------------------------

    def get(
        self, tenant: str, subject: str, attribute: str, *, at: Moment | None = None,
        known_at: Moment | None = None,
    ) -> Assertion | None:
        """The assertion holding at valid time ``at`` (default now) as the ledger stood at
        transaction time ``known_at`` (default: everything recorded)."""
        check_tenant(tenant)
        subject, attribute = check_name(subject, "subject"), check_name(attribute, "attribute")
        moment = self._moment(at, "at")
        known = optional_micros(known_at, "known_at")
        with self.backend.read(tenant) as reader:
            version = reader.get(subject, attribute, moment, known)
        return None if version is None else to_assertion(tenant, version)

    def history(
        self, tenant: str, subject: str, attribute: str, *, known_at: Moment | None = None
    ) -> list[Assertion]:
        """Every assertion of the key as the ledger stood at ``known_at``, by ``valid_from``."""
        check_tenant(tenant)
        subject, attribute = check_name(subject, "subject"), check_name(attribute, "attribute")
        known = optional_micros(known_at, "known_at")
        with self.backend.read(tenant) as reader:
            return [to_assertion(tenant, v) for v in reader.history(subject, attribute, known)]

    def versions(self, tenant: str, subject: str, attribute: str) -> list[Assertion]:
        """The full bitemporal record of a key: every version ever visible, by recording."""
        check_tenant(tenant)
        subject, attribute = check_name(subject, "subject"), check_name(attribute, "attribute")
        with self.backend.read(tenant) as reader:
            return [to_assertion(tenant, v) for v in reader.versions(subject, attribute)]

    def query(
        self, tenant: str, *, subject: str | None = None, attribute: str | None = None,
        memory_type: str | None = None, at: Moment | None = None, known_at: Moment | None = None,
        all_times: bool = False, limit: int = 100, after: Assertion | None = None,
    ) -> list[Assertion]:
        """Assertions of the tenant holding at ``at`` (default now), filtered; with
        ``all_times`` every valid interval. Pages by passing the last result as ``after``."""
        check_tenant(tenant)
        if not isinstance(all_times, bool):
            raise ValidationError("all_times", all_times, "must be true or false")
        if after is not None and not isinstance(after, Assertion):
            raise ValidationError("after", after, "must be an Assertion returned by query")
        flt = QueryFilter(
            subject=check_optional_name(subject, "subject"),
            attribute=check_optional_name(attribute, "attribute"),
            memory_type=check_optional_name(memory_type, "memory_type"),
            at=None if all_times else self._moment(at, "at"),
            known_at=optional_micros(known_at, "known_at"),
            after=None if after is None else (after.subject, after.attribute, to_micros(after.valid_from)),
            limit=_limit(limit),
        )
        with self.backend.read(tenant) as reader:
            return [to_assertion(tenant, v) for v in reader.query(flt)]

    # extraction (the work is in sgam.extraction; these are its entry points) ----------

    def remember(
        self, tenant: str, id: str, at: Moment, text: str, *, speaker: str | None = None,
        kind: str = "message", session: str | None = None, metadata: dict[str, Any] | None = None,
        extract: bool = True, client: ModelClient | None = None, policy: ExtractionPolicy | None = None,
    ) -> Remembered:
        """Record an episode, then extract facts from it now (``extract=True``) or queue it
        for ``sgam worker`` in the same transaction as the episode (``extract=False``)."""
        from .extraction import Remembered

        row = validate_episode(id, at, text, speaker, kind, session, metadata, check_tenant(tenant))

        def record(txn: WriteTransaction) -> EpisodeRow:
            stored = self._writes.add_episode(txn, row)
            if not extract:
                txn.enqueue_job(stored.episode_id, self._writes.now())
            return stored

        episode = to_episode(self.backend.run_write(tenant, record))
        if not extract:
            return Remembered(episode, None, True)
        return Remembered(episode, self.extract(tenant, episode.id, client=client, policy=policy), False)

    def extract(
        self, tenant: str, episode: str, *, client: ModelClient | None = None,
        policy: ExtractionPolicy | None = None,
    ) -> Extraction:
        """Run extraction on a recorded episode (default model and policy from the
        environment); the record stays inspectable through ``extractions``."""
        from .extraction import extract

        return extract(self.ledger, check_tenant(tenant), check_name(episode, "episode"), client=client, policy=policy)

    def extractions(self, tenant: str, *, episode: str | None = None, limit: int = 100) -> list[Extraction]:
        """Extraction records, newest first: raw replies, decisions and their reasons."""
        from .extraction import Extraction

        with self.backend.read(check_tenant(tenant)) as reader:
            rows = reader.extractions(check_optional_name(episode, "episode"), _limit(limit))
        return [Extraction.from_row(row) for row in rows]

    def extraction(self, tenant: str, extraction_id: int) -> Extraction:
        """One extraction record by id (NotFoundError if the tenant has none such)."""
        from .extraction import get_extraction

        return get_extraction(self.ledger, check_tenant(tenant), extraction_id)

    def held(self, tenant: str, *, status: str | None = "open", limit: int = 100) -> list[HeldCandidate]:
        """Candidates held back (pending confirmation or buffered as weak signals)."""
        from .extraction import HeldCandidate

        if status is not None and status not in HELD_STATUSES:
            raise ValidationError("status", status, f"must be one of {', '.join(HELD_STATUSES)} or None")
        with self.backend.read(check_tenant(tenant)) as reader:
            return [HeldCandidate.from_row(row) for row in reader.held_candidates(status, _limit(limit))]

    def confirm(self, tenant: str, held_id: int) -> WriteResult:
        """Confirm a held candidate: it is written now, sourced from its episode."""
        from .extraction import confirm

        return confirm(self.ledger, check_tenant(tenant), held_id)

    def reject(self, tenant: str, held_id: int) -> HeldCandidate:
        """Reject a held candidate: it is never written."""
        from .extraction import reject

        return reject(self.ledger, check_tenant(tenant), held_id)

    # actions --------------------------------------------------------------------------

    def once(
        self, tenant: str, action_key: str, request: Any, call: Callable[[str], Any], *,
        reconcile: Callable[[str], Reconciled | None] | None = None,
    ) -> Any:
        """Call ``call(action_key)`` at most once per tenant and key: the intent is
        committed first, the outcome after; a retry returns the recorded result; an
        intent without outcome raises ``ActionInDoubt`` unless ``reconcile`` settles it."""
        return once(self.ledger, tenant, action_key, request, call, reconcile=reconcile)

    def actions(self, tenant: str, *, status: str | None = None, limit: int = 100) -> list[Action]:
        """Recorded actions in the order they began (``status``: in_doubt or done)."""
        return actions(self.ledger, tenant, status, _limit(limit))

    # recall ---------------------------------------------------------------------------

    def search(
        self, tenant: str, question: str, *, limit: int = 10, config: SearchConfig | str | None = None,
        since: Moment | None = None, until: Moment | None = None, session: str | None = None,
        speaker: str | None = None, subject: str | None = None, memory_type: str | None = None,
    ) -> list[EvidenceHit]:
        """Episodes that may be evidence for ``question``: keyword and vector candidates
        fused by RRF and scored (``config``: a ``SearchConfig`` or a preset name)."""
        check_tenant(tenant)
        flt = SearchFilter(
            since=optional_micros(since, "since"), until=optional_micros(until, "until"),
            session=check_optional_name(session, "session"),
            speaker=check_optional_name(speaker, "speaker"),
            subject=check_optional_name(subject, "subject"),
            memory_type=check_optional_name(memory_type, "memory_type"),
        )
        return self._search.search(tenant, question, config=resolve_config(config), flt=flt,
                                   limit=_limit(limit), now=self._moment(None, "now"))

    def search_many(
        self, tenant: str, question: str, configs: Mapping[str, SearchConfig | str], *, limit: int = 10,
    ) -> dict[str, list[EvidenceHit]]:
        """``search`` under each named configuration, the index asked once: how evaluations
        compare settings on exactly the results a user would get."""
        check_tenant(tenant)
        resolved = {name: resolve_config(config) for name, config in configs.items()}
        return self._search.search_many(tenant, question, configs=resolved, flt=SearchFilter(),
                                        limit=_limit(limit), now=self._moment(None, "now"))

    def index_episodes(self, tenant: str, *, batch: int = 1000) -> int:
        """Give vectors to the tenant's episodes recorded before this embedder was set (and
        to facts still without one); returns how many episodes were embedded (0 without an
        embedder)."""
        done = self._search.backfill(check_tenant(tenant), _limit(batch))
        self._search.index_facts(tenant)
        return done

    def recall(
        self, tenant: str, question: str, *, at: Moment | None = None, known_at: Moment | None = None,
        budget: int = 1000, config: SearchConfig | str | None = None,
    ) -> RecallResult:
        """The smallest cited context for ``question`` within ``budget`` tokens: the exact
        state of the keys it names (valid at ``at``, as recorded by ``known_at``), then
        passages of documents (only without ``known_at``) and evidence recorded by
        ``known_at``, quoted as data. Reads only, so a recall with a past ``known_at``
        gives the same context later."""
        check_tenant(tenant)
        return recall(self._search, tenant, question, at=self._moment(at, "at"), budget=budget,
                      config=resolve_config(config), known_at=optional_micros(known_at, "known_at"),
                      documents=self.documents.passages)

    def _moment(self, value: Moment | None, field: str) -> int:
        return to_micros(self.clock() if value is None else parse_timestamp(value, field))


def _episode_row(index: int, item: Mapping[str, Any], tenant: str) -> EpisodeRow:
    prefix = f"episodes[{index}]."
    if not isinstance(item, Mapping):
        raise ValidationError(f"episodes[{index}]", item, "must be a mapping")
    unknown = set(item) - {"id", "at", "text", "speaker", "kind", "session", "metadata"}
    if unknown:
        raise ValidationError(f"{prefix}{min(unknown)}", item, "unknown field")
    try:
        return validate_episode(item.get("id"), item.get("at"), item.get("text"), item.get("speaker"),
                                item.get("kind", "message"), item.get("session"), item.get("metadata"), tenant)
    except ValidationError as exc:
        raise ValidationError(f"{prefix}{exc.field}", exc.value, exc.rule) from None


def _batch(items: object, field: str) -> Iterable[Any]:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise ValidationError(field, items, "must be a list (any iterable) of entries")
    return items


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_QUERY_LIMIT:
        raise ValidationError("limit", limit, f"must be an integer from 1 to {MAX_QUERY_LIMIT}")
    return limit
