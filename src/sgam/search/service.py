"""The search layer as ``Memory`` uses it: embed before writing, search after."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from .._core.errors import StoreError
from .._core.purpose import ConsentBook, consent_uses
from ..store import (
    Backend,
    EmbedderState,
    EmbedderStateRow,
    EpisodeRow,
    KeywordEpisodes,
    ReadAhead,
    Reader,
    SearchFilter,
    SearchIndex,
    VectorTally,
    WriteTransaction,
)
from .choice import EmbedderChoice, StaleEmbedders
from .config import SearchConfig
from .embedders import Embedder, Vectors, embed_checked, embed_query
from .engine import EvidenceHit, gather, hit, keyword_query, rank, search_evidence
from .scope import in_scope
from .text import check_question, keywords

T = TypeVar("T")

STALE_RETRIES = 3
"""Times a write makes its vectors again after finding the tenant's embedders changed
(a switch between its embedding and its commit): more means switches faster than writes."""


def revoked_subjects(reader: Reader, purpose: str | None) -> set[str]:
    """The subjects nothing may be said about for ``purpose``: their consent is revoked."""
    return ConsentBook(reader.revoking_consents(consent_uses(purpose))).revoked_subjects(purpose)


def embedding_text(row: EpisodeRow) -> str:
    """What gets embedded: the speaker's name belongs to what a turn is about."""
    return f"{row.speaker}: {row.text}" if row.speaker else row.text


@dataclass(frozen=True, slots=True)
class Embedded:
    """New rows' vectors, by model, made under the tenant's embedder ``state`` as last seen."""

    state: EmbedderStateRow | None
    vectors: dict[str, Vectors]


class SearchService:
    """Owns the backend's search index and the embedders: the process's own (``embedder``)
    and those a tenant's recorded state names (``choice``)."""

    def __init__(self, backend: Backend, embedder: Embedder | None) -> None:
        self.backend = backend
        self.embedder = embedder
        self.choice = EmbedderChoice(embedder)
        self._index: SearchIndex | None = None

    def bound(self, backend: Backend) -> SearchService:
        """This service over ``backend`` (a call's view of the same store): the same
        embedders, the same index and what the process saw of each tenant."""
        view = SearchService.__new__(SearchService)
        view.__dict__.update(self.__dict__)
        view.backend = backend
        view._index = self.index
        return view

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            self._index = self.backend.search_index()
        return self._index

    def state(self, tenant: str) -> EmbedderStateRow | None:
        """The tenant's embedders as this process saw them last (read once, the first time)."""
        seen, state = self.choice.guess(tenant)
        if not seen:
            with self.backend.read_one(tenant) as reader:
                state = self.index.embedder_state(reader)
            self.choice.saw(self.index, tenant, state)
        return state

    def embedder_for(self, tenant: str) -> Embedder | None:
        """The embedder the tenant's search uses, as this process saw it last."""
        return self.choice.active(self.state(tenant))

    def first_reads(self, tenant: str, question: str, config: SearchConfig, flt: SearchFilter) -> list[ReadAhead]:
        """What ``active_in`` and ``ranked`` ask first, for a read to send ahead: the
        tenant's embedder state, then what the search with the embedder this process saw
        last (the one ``confirmed`` searches with first) asks first: with a vector channel
        that may be ranked from this process's copy of the vectors, the tally that copy is
        checked against; else its keyword candidates."""
        reads: list[ReadAhead] = [EmbedderState()]
        seen, state = self.choice.guess(tenant)
        if not seen:  # the embedder is known only once the read has said which
            return reads
        embedder = self.choice.active(state)
        if embedder is not None and config.vector:
            if flt.on_times_only:
                reads.append(VectorTally(embedder.name, int(embed_query(embedder, question).shape[0])))
            return reads
        keyword = keyword_query(keywords(question), [config])
        if keyword is not None:
            reads.append(KeywordEpisodes(tuple(keyword.terms), keyword.limit, flt))
        return reads

    def active_in(self, reader: Reader) -> Embedder | None:
        """The embedder the tenant's search uses in ``reader``'s snapshot."""
        return self.choice.active(self.choice.in_read(self.index, reader, reader.tenant))

    def confirmed(self, reader: Reader, search: Callable[[Embedder | None], T]) -> T:
        """``search`` with the embedder the tenant's search uses in ``reader``'s snapshot.
        It runs first with the one this process saw last, and the snapshot's is read after
        it (that statement may ride with the read's first: ``Reader.prefetch``), so the
        search's own statements go first; only if they differ does it run again."""
        seen, state = self.choice.guess(reader.tenant)
        guessed = self.choice.active(state) if seen else self.active_in(reader)
        found = search(guessed)
        actual = self.active_in(reader)
        return found if actual is guessed else search(actual)

    def wanted_in(self, txn: WriteTransaction) -> set[str]:
        """The models whose vectors the unit of work may store (a switch waits for it)."""
        state = self.index.embedder_state(txn, "share")
        self.choice.saw(self.index, txn.tenant, state)
        return self.choice.models(state)

    def embed_rows(self, tenant: str, rows: Sequence[EpisodeRow]) -> Embedded:
        """Called before the write transaction opens: a failing embedder changes nothing."""
        state = self.state(tenant)
        if not rows:
            return Embedded(state, {})
        texts = [embedding_text(row) for row in rows]
        return Embedded(state, {embedder.name: embed_checked(embedder, texts)
                                for embedder in self.choice.for_writes(state)})

    def with_vectors(self, tenant: str, rows: Sequence[EpisodeRow], run: Callable[[Embedded], T]) -> T:
        """``run`` (a unit of work that ends in ``store_vectors``) with the rows' vectors;
        made again and run again when the unit found the tenant's embedders changed since."""
        for _ in range(STALE_RETRIES):
            embedded = self.embed_rows(tenant, rows)
            try:
                return run(embedded)
            except StaleEmbedders as stale:
                self.choice.saw(self.index, tenant, stale.state)
        raise StoreError(f"the embedders of tenant {tenant!r} changed {STALE_RETRIES} times during one write",
                         field="tenant", value=tenant)

    def store_vectors(
        self, txn: WriteTransaction, rows: Sequence[EpisodeRow], stored: Sequence[EpisodeRow], embedded: Embedded,
    ) -> None:
        """Inside the transaction: vectors of the rows that were new (not idempotent
        repeats), of every model the tenant wants now; ``StaleEmbedders`` (the unit rolls
        back) when they were made for another state."""
        state = self.index.embedder_state(txn, "share")
        if state != embedded.state:
            raise StaleEmbedders(state)
        fresh = [i for i, row in enumerate(rows) if stored[i] is row]
        for model, vectors in embedded.vectors.items():
            if fresh:
                self.index.put_episode_vectors(txn, model, [(rows[i].episode_id, vectors[i]) for i in fresh])

    def embed_question(self, question: str, configs: Sequence[SearchConfig] | None = None,
                       tenant: str | None = None) -> None:
        """Make the question's vector before a read opens (when an embedder is set and
        one of ``configs``, default any, reads the vector channel): an embedder may be a
        model across the network, and a read holds a pooled connection. ``embed_query``
        remembers the vector, so the search in the read finds it made (with the embedder
        ``tenant``'s search uses, as this process saw it last)."""
        embedder = self.embedder if tenant is None else self.embedder_for(tenant)
        if embedder is not None and (configs is None or any(config.vector for config in configs)):
            embed_query(embedder, question)

    def backfill(self, tenant: str, batch: int) -> int:
        """Embed episodes recorded without the embedder the tenant's search uses, a batch
        per transaction."""
        embedder = self.embedder_for(tenant)
        if embedder is None:
            return 0
        done, after = 0, 0
        while True:
            with self.backend.read(tenant) as reader:
                found = self.index.episodes_without_vectors(reader, embedder.name, batch, after)
            if not found:
                break
            rows, after = [stored.row for stored in found], found[-1].key
            vectors = embed_checked(embedder, [embedding_text(row) for row in rows])
            items = [(row.episode_id, vectors[i]) for i, row in enumerate(rows)]
            if not self.backend.run_write(tenant, partial(self._put_checked, model=embedder.name,
                                                          put=self.index.put_episode_vectors, items=items)):
                break
            done += len(rows)
            if len(rows) < batch:
                break
        return done

    def _put_checked(self, txn: WriteTransaction, model: str, put: Callable[[WriteTransaction, str, Any], None],
                     items: Any) -> bool:
        """Store ``items`` with ``put`` if the tenant still wants vectors of ``model``."""
        if model not in self.wanted_in(txn):
            return False
        put(txn, model, items)
        return True

    def index_facts(self, tenant: str, batch: int = 1000, rounds: int = 10) -> int:
        """Embed current facts that have no vector yet, by every embedder the tenant's
        rows get one of. Runs after writes (and in ``sgam index``), never on a read, so a
        read changes nothing; vectors die with their rows (trigger)."""
        return sum(self._index_facts(tenant, embedder, batch, rounds)
                   for embedder in self.choice.for_writes(self.state(tenant)))

    def _index_facts(self, tenant: str, embedder: Embedder, batch: int, rounds: int) -> int:
        done = 0
        for _ in range(rounds):
            with self.backend.read(tenant) as reader:
                missing = self.index.assertions_without_vectors(reader, embedder.name, batch)
            if not missing:
                break
            vectors = embed_checked(embedder, [text for _, text in missing])
            items = [(key, vectors[i]) for i, (key, _) in enumerate(missing)]
            if not self.backend.run_write(tenant, partial(self._put_checked, model=embedder.name,
                                                          put=self.index.put_assertion_vectors, items=items)):
                break
            done += len(missing)
        return done

    def similar_keys(
        self, reader: Reader, question: str, at: int, limit: int, floor: float, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        """Keys whose "subject attribute value" text is close to the question (cosine >= floor),
        among the facts as the ledger stood at ``known_at`` (default: now)."""
        embedder = self.active_in(reader)
        if embedder is None:
            return []
        vector = embed_query(embedder, question)
        found = self.index.vector_keys(reader, embedder.name, vector, at, limit, known_at)
        return [(subject, attribute) for subject, attribute, score in found if score >= floor]

    def search(
        self, reader: Reader, question: str, *, config: SearchConfig, flt: SearchFilter, limit: int, now: int,
        purpose: str | None = None,
    ) -> list[EvidenceHit]:
        """Ranked evidence in the caller's scope (``scope.in_scope``): nothing about a
        subject whose consent for ``purpose`` is revoked. Every read is the caller's."""
        check_question(question)
        revoked = revoked_subjects(reader, purpose)
        hits = self.ranked(reader, question, config=config, flt=flt, limit=limit, now=now)
        return in_scope(reader, hits, revoked)[:limit]

    def ranked(
        self, reader: Reader, question: str, *, config: SearchConfig, flt: SearchFilter, limit: int, now: int,
    ) -> list[EvidenceHit]:
        """Evidence before scope, ranked deeper than ``limit`` so that what ``in_scope``
        removes leaves ``limit`` to return."""
        check_question(question)
        return self.confirmed(reader, lambda embedder: search_evidence(
            self.index, embedder, reader, question, config, flt, 2 * limit + 10, now))

    def search_many(
        self, reader: Reader, question: str, *, configs: Mapping[str, SearchConfig], flt: SearchFilter,
        limit: int, now: int,
    ) -> dict[str, list[EvidenceHit]]:
        """The same question under several configurations, the index asked once: each
        result equals what ``search`` returns with that configuration."""
        check_question(question)
        revoked = revoked_subjects(reader, None)
        found = self.confirmed(reader, lambda embedder: gather(
            self.index, embedder, reader, question, list(configs.values()), flt, now))
        ranked = {name: [hit(found.rows[key], score) for key, score in rank(found, config, 2 * limit + 10, now)]
                  for name, config in configs.items()}
        return {name: in_scope(reader, hits, revoked)[:limit] for name, hits in ranked.items()}
