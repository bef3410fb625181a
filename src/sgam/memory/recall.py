"""``Memory``'s search and recall: hybrid search of episodes and the cited context of a
question, both read through the ledger service (deadlines settled first)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from .._core.errors import ValidationError
from .._core.model import IndexStatus
from .._core.purpose import check_purpose
from .._core.time import Moment, moment_micros, optional_micros
from .._core.values import check_limit, check_optional_name, check_optional_subject, check_tenant
from ..ledger.service import Ledger
from ..recall import RecallResult, recall
from ..search import EvidenceHit, SearchConfig, SearchFilter, check_question, load_embedder, resolve_config
from ..search.embedders import Embedder
from ..store import EmbedderState

if TYPE_CHECKING:
    from ..documents import DocumentHit, Documents
    from ..store import Reader


class RecallCalls:
    """``Memory``'s search, recall and document memory: a part the facade delegates to,
    working through the ledger service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._documents: Documents | None = None

    @property
    def documents(self) -> Documents:
        """Document memory: each tenant's files under /memories, with revisions (``sgam.documents``)."""
        if self._documents is None:
            from ..documents import Documents

            self._documents = Documents(self.ledger.backend, lambda: self.ledger.clock(),
                                        self.ledger.search.embedder, self.ledger.digests, self.ledger)
        return self._documents

    def search(
        self, tenant: str, question: str, *, limit: int = 10, config: SearchConfig | str | None = None,
        since: Moment | None = None, until: Moment | None = None, session: str | None = None,
        speaker: str | None = None, subject: str | None = None, memory_type: str | None = None,
        purpose: str | None = None,
    ) -> list[EvidenceHit]:
        """Episodes that may be evidence for ``question``: keyword and vector candidates
        fused by RRF and scored (``config``: a ``SearchConfig`` or a preset name). Nothing
        about a subject whose consent (for ``purpose``) is revoked; an episode and the
        episodes derived from it count as one source."""
        check_tenant(tenant)
        scope = check_purpose(purpose)
        flt = SearchFilter(
            since=optional_micros(since, "since"), until=optional_micros(until, "until"),
            session=check_optional_name(session, "session"),
            speaker=check_optional_name(speaker, "speaker"),
            subject=check_optional_subject(subject, "subject"),
            memory_type=check_optional_name(memory_type, "memory_type"),
        )
        resolved, checked = resolve_config(config), check_limit(limit)
        check_question(question)
        self.ledger.search.embed_question(question, [resolved], tenant)
        with self.ledger.read(tenant, "search", [EmbedderState()]) as reader:
            return self.ledger.search.search(reader, question, config=resolved, flt=flt, limit=checked,
                                             now=self.ledger.now(), purpose=scope)

    def search_many(
        self, tenant: str, question: str, configs: Mapping[str, SearchConfig | str], *, limit: int = 10,
    ) -> dict[str, list[EvidenceHit]]:
        """``search`` under each named configuration, the index asked once: how evaluations
        compare settings on exactly the results a user would get."""
        check_tenant(tenant)
        if not isinstance(configs, Mapping) or not configs or not all(isinstance(n, str) for n in configs):
            raise ValidationError("configs", configs, "must be a non-empty mapping of names to configurations")
        resolved = {name: resolve_config(config) for name, config in configs.items()}
        checked = check_limit(limit)
        check_question(question)
        self.ledger.search.embed_question(question, list(resolved.values()), tenant)
        with self.ledger.read(tenant, "search", [EmbedderState()]) as reader:
            return self.ledger.search.search_many(reader, question, configs=resolved, flt=SearchFilter(),
                                                  limit=checked, now=self.ledger.now())

    def index_episodes(self, tenant: str, *, batch: int = 1000) -> int:
        """Give vectors to the tenant's episodes recorded before this embedder was set (and
        to facts still without one); returns how many episodes were embedded (0 without an
        embedder)."""
        done = self.ledger.search.backfill(check_tenant(tenant), check_limit(batch))
        self.ledger.search.index_facts(tenant)
        return done

    def reembed(
        self, tenant: str, embedder: Embedder | str, *, batch: int = 1000,
        progress: Callable[[IndexStatus], None] | None = None,
    ) -> IndexStatus:
        """Build ``embedder``'s vectors of the tenant's episodes, current facts and
        document chunks beside those search uses now (nothing is extracted again), then
        switch search to them in one transaction and remove every vector of any other
        embedder, as an erasure removes what it erases. Safe to interrupt: running it again
        embeds only what is still missing. Search uses the old vectors until the switch.
        ``embedder``: an ``Embedder``, or a spec (``wordllama``, ``model2vec:/path``...;
        ``load_embedder``) recorded so that other processes load the same one.
        ``progress`` is called after each batch. Returns the status after the switch."""
        from ..search.reembedding import Reembedding

        check_tenant(tenant)
        checked = check_limit(batch, "batch")
        if progress is not None and not callable(progress):
            raise ValidationError("progress", progress, "must be a callable or None")
        chosen, spec = _embedder(embedder)
        return Reembedding(self.ledger.search, tenant, chosen, spec, self.ledger.now).run(checked, progress)

    def index_status(self, tenant: str) -> IndexStatus:
        """The embedder the tenant's search uses now, the one being built beside it (by
        ``reembed``) and how many of the rows that need one have a vector of it."""
        from ..search.reembedding import status

        return status(self.ledger.search, check_tenant(tenant))

    def _passages(self, tenant: str, reader: Reader, question: str, floor: float,
                  revoked: set[str]) -> list[DocumentHit]:
        """Recall's document passages, in recall's own read (its deadlines settled)."""
        return self.documents.passages(tenant, question, floor, revoked, settled=True, reader=reader)

    def recall(
        self, tenant: str, question: str, *, at: Moment | None = None, known_at: Moment | None = None,
        budget: int = 1000, config: SearchConfig | str | None = None, purpose: str | None = None,
    ) -> RecallResult:
        """The smallest cited context for ``question`` within ``budget`` tokens: the exact
        state of the keys it names (valid at ``at``, as recorded by ``known_at``, for
        ``purpose``), then passages of documents (only without ``known_at``) and evidence
        recorded by ``known_at``, quoted as data; nothing about a subject whose consent is
        revoked, nothing past its deadline. It writes only to complete an expiry that is
        due, so a recall with a past ``known_at`` gives the same context later as long as
        nothing of it has expired."""
        check_tenant(tenant)
        scope = check_purpose(purpose)
        moment = moment_micros(self.ledger.clock, at, "at")
        known = optional_micros(known_at, "known_at")
        return recall(self.ledger.search, tenant, question, at=moment, budget=budget, config=resolve_config(config),
                      known_at=known, documents=partial(self._passages, tenant), purpose=scope,
                      read=lambda ahead: self.ledger.read(tenant, "recall", ahead),
                      document_reads=self.documents.passage_reads)


def _embedder(given: Embedder | str) -> tuple[Embedder, str | None]:
    """An embedder object as given (no spec), or the one a spec loads, with the spec."""
    if isinstance(given, str):
        spec = given.strip()
        try:
            return load_embedder(spec), spec
        except ValidationError as exc:
            raise ValidationError("embedder", given, exc.rule) from exc
    if isinstance(given, Embedder):
        return given, None
    raise ValidationError("embedder", given, "must be an Embedder or a spec such as wordllama or model2vec:/path")
