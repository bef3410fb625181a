"""What a backend must provide for search. SQLite: FTS5 + vectors in a table;
PostgreSQL: tsvector + pgvector. Ranking, fusion and recall live above this line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ._protocol import EpisodeRow, WriteTransaction


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Scope of an evidence search beyond the tenant. Times are epoch microseconds;
    ``subject``/``memory_type`` keep episodes that sourced such an operation."""

    since: int | None = None
    until: int | None = None
    session: str | None = None
    speaker: str | None = None
    subject: str | None = None
    memory_type: str | None = None
    known_at: int | None = None
    """Only episodes recorded at or before this transaction time (a reproducible read)."""


@dataclass(frozen=True, slots=True)
class StoredEpisode:
    """An episode row with its index key (``seq``): insertion order, also turn adjacency."""

    key: int
    row: EpisodeRow


class SearchIndex(Protocol):
    """The search part of a backend: nine methods, all tenant-scoped.

    Every read must see only what the ledger holds now: an erased episode or assertion is
    gone from each of them in the transaction that erased it."""

    def put_episode_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        """Inside the write unit of work: store one unit vector per episode id."""
        ...

    def keyword_episodes(self, tenant: str, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """Episode keys matching any term, best BM25 (or ts_rank) first."""
        ...

    def vector_episodes(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        """Episode keys by cosine similarity to ``vector``, best first."""
        ...

    def episodes_by_key(self, tenant: str, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        """The rows behind keys; keys no longer in the ledger are simply absent."""
        ...

    def matching_keys(
        self, tenant: str, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        """(subject, attribute) keys whose subject or attribute names one of ``terms`` and
        that hold a current version at valid time ``at``, best match first."""
        ...

    def episodes_without_vectors(self, tenant: str, model: str, limit: int) -> list[EpisodeRow]:
        """Episodes with no vector of ``model`` yet (recorded before an embedder was set)."""
        ...

    def assertions_without_vectors(self, tenant: str, model: str, limit: int) -> list[tuple[int, str]]:
        """Current assertion rows with no vector of ``model``: (row key, "subject attribute value")."""
        ...

    def put_assertion_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None:
        """Store vectors of assertion rows that still exist (others are skipped)."""
        ...

    def vector_keys(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        """(subject, attribute, cosine) of keys holding a current version at ``at``, best first."""
        ...


def fact_text(subject: str, attribute: str, value: str) -> str:
    """What a fact's vector is made of: names with spaces, the value as plain text."""
    try:
        loaded = json.loads(value)
    except ValueError:
        loaded = value
    shown = loaded if isinstance(loaded, str) else json.dumps(loaded, ensure_ascii=False)
    return f"{subject} {attribute} {shown}".replace("_", " ")
