"""What a backend must provide for search. SQLite: FTS5 + vectors in a table;
PostgreSQL: tsvector + pgvector. Ranking, fusion and recall live above this line."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from .._records import EpisodeRow
from .._requests import SearchFilter
from .unit import Reader, WriteTransaction


@dataclass(frozen=True, slots=True)
class StoredEpisode:
    """An episode row with its index key (``seq``): insertion order, also turn adjacency."""

    key: int
    row: EpisodeRow


class KeywordQuery(NamedTuple):
    """A keyword channel to rank: the question's terms and how many keys to return."""

    terms: Sequence[str]
    limit: int


class VectorQuery(NamedTuple):
    """A vector channel to rank: the embedder's name, the question's vector, how many keys."""

    model: str
    vector: npt.NDArray[np.float32]
    limit: int


class CandidateEpisodes(NamedTuple):
    """Both channels' rankings (best first) and the rows of every key in either."""

    keyword: list[int]
    vector: list[int]
    rows: dict[int, StoredEpisode]


@dataclass(frozen=True, slots=True)
class EmbedderStateRow:
    """A tenant's ``search_embedders`` row. ``active`` None: each process's own embedder."""

    active: str | None = None
    active_spec: str | None = None
    building: str | None = None
    building_spec: str | None = None
    building_since: int | None = None
    switched_at: int | None = None


@dataclass(frozen=True, slots=True)
class VectorProgress:
    """Rows that need a vector of one model, and how many have one: episodes, current
    assertion rows, document chunks."""

    episodes: int
    episodes_embedded: int
    facts: int
    facts_embedded: int
    chunks: int
    chunks_embedded: int

    @property
    def complete(self) -> bool:
        return (self.episodes_embedded == self.episodes and self.facts_embedded == self.facts
                and self.chunks_embedded == self.chunks)


class SearchIndex(Protocol):
    """The search part of a backend: sixteen methods, all tenant-scoped.

    Reads run in the caller's read scope (``reader``, from ``Backend.read``): one scope
    and one connection per search, never a read nested inside another (on PostgreSQL
    that took a second pooled connection while holding the first, and concurrent
    recalls starved the pool). Writes run in the caller's unit of work. Every read must
    see only what the ledger holds now: an erased episode or assertion is gone from each
    of them in the transaction that erased it."""

    def put_episode_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        """Inside the write unit of work: store one unit vector per episode id."""
        ...

    def keyword_episodes(self, reader: Reader, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """Episode keys matching any term, best BM25 (or ts_rank) first."""
        ...

    def vector_episodes(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        """Episode keys by cosine similarity to ``vector``, best first."""
        ...

    def episodes_by_key(self, reader: Reader, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        """The rows behind keys; keys no longer in the ledger are simply absent."""
        ...

    def episodes_holding(self, reader: Reader, terms: Sequence[str], keys: Sequence[int]) -> dict[int, bool]:
        """Those of ``keys`` whose episode holds any of ``terms``, each with whether it
        holds every one, by the keyword index's own words and stems: ranking tells
        evidence that shares a word with the question from evidence that shares none
        exactly as the keyword channel matches."""
        ...

    def candidate_episodes(
        self, reader: Reader, flt: SearchFilter, keyword: KeywordQuery | None, vector: VectorQuery | None,
    ) -> CandidateEpisodes:
        """What ``keyword_episodes`` and ``vector_episodes`` return for the channels asked
        (an empty ranking for one not asked), and ``episodes_by_key`` of their union: asked
        together, so that a backend may overlap them (``one_by_one`` does not)."""
        ...

    def matching_keys(
        self, reader: Reader, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        """(subject, attribute) keys whose subject or attribute names one of ``terms`` and
        that hold a current version at valid time ``at``, best match first."""
        ...

    def episodes_without_vectors(self, reader: Reader, model: str, limit: int, after: int = 0) -> list[StoredEpisode]:
        """Episodes with no vector of ``model`` yet (recorded before an embedder was set),
        in key order from the first key above ``after``: a caller that goes on from the
        last key it got never looks at the same episode twice."""
        ...

    def assertions_without_vectors(self, reader: Reader, model: str, limit: int) -> list[tuple[int, str]]:
        """Current assertion rows with no vector of ``model``: (row key, "subject attribute value")."""
        ...

    def put_assertion_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None:
        """Store vectors of assertion rows that still exist (others are skipped)."""
        ...

    def vector_keys(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        """(subject, attribute, cosine) of keys holding a current version at ``at``, best first."""
        ...

    def embedder_state(self, handle: Reader | WriteTransaction, lock: str = "") -> EmbedderStateRow | None:
        """In the caller's read or unit of work: the tenant's embedders, None if never
        recorded. ``lock`` (in a unit of work): ``share`` holds off a switch until it
        commits, ``update`` holds off writers that read the row with ``share``."""
        ...

    def put_embedder_state(self, handle: WriteTransaction, state: EmbedderStateRow) -> None: ...

    def vector_progress(self, handle: Reader | WriteTransaction, model: str) -> VectorProgress:
        """How many of the tenant's episodes, current facts and chunks have a vector of ``model``."""
        ...

    def drop_vectors_except(self, handle: WriteTransaction, model: str) -> int:
        """Delete the tenant's vectors of every other model (with whatever counts them)."""
        ...

    def forget_copies(self, tenant: str, keep: Collection[str]) -> None:
        """Drop this process's copies of the tenant's vectors of models not in ``keep``:
        memory holds no vector the database no longer does."""
        ...


def one_by_one(
    index: SearchIndex, reader: Reader, flt: SearchFilter, keyword: KeywordQuery | None, vector: VectorQuery | None,
) -> CandidateEpisodes:
    """``SearchIndex.candidate_episodes`` as its three reads, one after the other."""
    by_keyword = [] if keyword is None else index.keyword_episodes(reader, keyword.terms, flt, keyword.limit)
    by_vector = [] if vector is None else index.vector_episodes(reader, vector.model, vector.vector, flt,
                                                                vector.limit)
    rows = index.episodes_by_key(reader, list(dict.fromkeys(by_keyword + by_vector)))
    return CandidateEpisodes(by_keyword, by_vector, rows)


def fact_text(subject: str, attribute: str, value: str) -> str:
    """What a fact's vector is made of: names with spaces, the value as plain text."""
    try:
        loaded = json.loads(value)
    except ValueError:
        loaded = value
    shown = loaded if isinstance(loaded, str) else json.dumps(loaded, ensure_ascii=False)
    return f"{subject} {attribute} {shown}".replace("_", " ")
