"""The search layer as ``Memory`` uses it: embed before writing, search after."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from .._core.purpose import ConsentBook, consent_uses
from ..store import Backend, EpisodeRow, Reader, SearchFilter, SearchIndex, WriteTransaction
from .config import SearchConfig
from .embedders import Embedder, Vectors, embed_checked, embed_query
from .engine import EvidenceHit, gather, hit, rank, search_evidence
from .scope import in_scope
from .text import check_question


def revoked_subjects(reader: Reader, purpose: str | None) -> set[str]:
    """The subjects nothing may be said about for ``purpose``: their consent is revoked."""
    return ConsentBook(reader.revoking_consents(consent_uses(purpose))).revoked_subjects(purpose)


def embedding_text(row: EpisodeRow) -> str:
    """What gets embedded: the speaker's name belongs to what a turn is about."""
    return f"{row.speaker}: {row.text}" if row.speaker else row.text


class SearchService:
    """Owns the backend's search index and the optional embedder."""

    def __init__(self, backend: Backend, embedder: Embedder | None) -> None:
        self.backend = backend
        self.embedder = embedder
        self._index: SearchIndex | None = None

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            self._index = self.backend.search_index()
        return self._index

    def embed_rows(self, rows: Sequence[EpisodeRow]) -> Vectors | None:
        """Called before the write transaction opens: a failing embedder changes nothing."""
        if self.embedder is None or not rows:
            return None
        return embed_checked(self.embedder, [embedding_text(row) for row in rows])

    def store_vectors(
        self, txn: WriteTransaction, rows: Sequence[EpisodeRow], stored: Sequence[EpisodeRow],
        vectors: Vectors | None,
    ) -> None:
        """Inside the transaction: vectors of the rows that were new (not idempotent repeats)."""
        if vectors is None or self.embedder is None:
            return
        fresh = [(row.episode_id, vectors[i]) for i, row in enumerate(rows) if stored[i] is row]
        if fresh:
            self.index.put_episode_vectors(txn, self.embedder.name, fresh)

    def embed_question(self, question: str, configs: Sequence[SearchConfig] | None = None) -> None:
        """Make the question's vector before a read opens (when an embedder is set and
        one of ``configs``, default any, reads the vector channel): an embedder may be a
        model across the network, and a read holds a pooled connection. ``embed_query``
        remembers the vector, so the search in the read finds it made."""
        if self.embedder is not None and (configs is None or any(config.vector for config in configs)):
            embed_query(self.embedder, question)

    def backfill(self, tenant: str, batch: int) -> int:
        """Embed episodes recorded without this embedder, a batch per transaction."""
        if self.embedder is None:
            return 0
        done = 0
        while True:
            with self.backend.read(tenant) as reader:
                rows = self.index.episodes_without_vectors(reader, self.embedder.name, batch)
            if not rows:
                break
            self.backend.run_write(tenant, partial(self.store_vectors, rows=rows, stored=rows,
                                                   vectors=self.embed_rows(rows)))
            done += len(rows)
            if len(rows) < batch:
                break
        return done

    def index_facts(self, tenant: str, batch: int = 1000, rounds: int = 10) -> int:
        """Embed current facts that have no vector yet. Runs after writes (and in ``sgam
        index``), never on a read, so a read changes nothing; vectors die with their rows
        (trigger)."""
        if self.embedder is None:
            return 0
        done = 0
        for _ in range(rounds):
            with self.backend.read(tenant) as reader:
                missing = self.index.assertions_without_vectors(reader, self.embedder.name, batch)
            if not missing:
                break
            vectors = embed_checked(self.embedder, [text for _, text in missing])
            items = [(key, vectors[i]) for i, (key, _) in enumerate(missing)]
            self.backend.run_write(tenant, partial(self.index.put_assertion_vectors, model=self.embedder.name,
                                                   items=items))
            done += len(missing)
        return done

    def similar_keys(
        self, reader: Reader, question: str, at: int, limit: int, floor: float, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        """Keys whose "subject attribute value" text is close to the question (cosine >= floor),
        among the facts as the ledger stood at ``known_at`` (default: now)."""
        if self.embedder is None:
            return []
        vector = embed_query(self.embedder, question)
        found = self.index.vector_keys(reader, self.embedder.name, vector, at, limit, known_at)
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
        return search_evidence(self.index, self.embedder, reader, question, config, flt, 2 * limit + 10, now)

    def search_many(
        self, reader: Reader, question: str, *, configs: Mapping[str, SearchConfig], flt: SearchFilter,
        limit: int, now: int,
    ) -> dict[str, list[EvidenceHit]]:
        """The same question under several configurations, the index asked once: each
        result equals what ``search`` returns with that configuration."""
        check_question(question)
        revoked = revoked_subjects(reader, None)
        found = gather(self.index, self.embedder, reader, question, list(configs.values()), flt, now)
        ranked = {name: [hit(found.rows[key], score) for key, score in rank(found, config, 2 * limit + 10, now)]
                  for name, config in configs.items()}
        return {name: in_scope(reader, hits, revoked)[:limit] for name, hits in ranked.items()}
