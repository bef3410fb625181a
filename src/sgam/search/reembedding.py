"""Re-embedding without re-extraction: a new embedder's vectors built beside the old ones,
search switched to them in one transaction once they are complete, the old ones removed
as an erasure removes what it erases.

The build is recorded first (``search_embedders.building``), then done in batches, each
embedded outside any transaction and stored in one of its own: an interrupted build
keeps every batch it committed, and running it again embeds only the rows still without
a vector of the new model. Writers meanwhile give new episodes vectors of both models
when they can load the new one (``choice.EmbedderChoice.for_writes``); the build embeds
whatever they could not. The switch is one unit of work that locks the tenant's row,
finds every episode, current fact and document chunk embedded by the new model (else
the build goes round again for what writers added), deletes every vector of any other
model (with the PostgreSQL vector tally's rows that name them), records the new model
as the one search uses and audits how many vectors went (a count, no content). Searches
read that row in their own snapshot, so each uses the old vectors or the new ones, never
a mixture. After it, the residue goes as after an
erasure (SQLite: the WAL emptied, freed pages already zeroed), and this process drops
its in-memory copies of the old vectors; other processes drop theirs when they next see
the tenant's new state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from .._core.errors import ConflictError
from .._core.model import IndexStatus
from .._core.time import from_micros
from ..store import AuditRow, EmbedderStateRow, Reader, WriteTransaction
from .embedders import Embedder, embed_checked
from .service import SearchService, embedding_text

ROUNDS = 100
"""Build-and-switch rounds before giving up on a tenant whose writers add rows faster
than the build embeds them (the build is kept: running it again goes on from there)."""

Progress = Callable[[IndexStatus], None]


class Reembedding:
    """One tenant's build of ``embedder``'s vectors (``spec``: how other processes load
    it, None when it was given as an object) and the switch to them."""

    def __init__(self, search: SearchService, tenant: str, embedder: Embedder, spec: str | None,
                 now: Callable[[], int]) -> None:
        self.search = search
        self.tenant = tenant
        self.embedder = embedder
        self.spec = spec
        self.now = now
        self._after = 0
        search.choice.remember(embedder)

    @property
    def model(self) -> str:
        return self.embedder.name

    def run(self, batch: int, progress: Progress | None = None) -> IndexStatus:
        """Record the build, embed in batches, switch; the status after the switch."""
        index = self.search.index
        started = self.search.backend.run_write(self.tenant, self._start)
        self.search.choice.saw(index, self.tenant, started)
        for _ in range(ROUNDS):
            self._build(batch, progress)
            switched = self.search.backend.run_write(self.tenant, self._switch)
            if switched is not None:
                self.search.choice.saw(index, self.tenant, switched)
                self.search.backend.purge_residue()
                break
        else:
            raise ConflictError(f"writers of tenant {self.tenant!r} added rows faster than {self.model!r} embedded "
                                f"them in {ROUNDS} rounds: run it again", field="tenant", value=self.tenant)
        found = status(self.search, self.tenant)
        if progress is not None:
            progress(found)
        return found

    # units of work ----------------------------------------------------------------------

    def _start(self, txn: WriteTransaction) -> EmbedderStateRow:
        """Record the build (a build of another model in progress is replaced: its vectors
        go at the switch with every other model's)."""
        index = self.search.index
        state = index.embedder_state(txn, "update") or EmbedderStateRow()
        since = state.building_since if state.building == self.model else self.now()
        fresh = replace(state, building=self.model, building_spec=self.spec, building_since=since)
        index.put_embedder_state(txn, fresh)
        return fresh

    def _switch(self, txn: WriteTransaction) -> EmbedderStateRow | None:
        """Search uses the new vectors from this commit on, and nothing is left of the old:
        the state it records; None (nothing changed) while a row still lacks a vector of
        the new model."""
        index = self.search.index
        self._building(txn, "update")
        if not index.vector_progress(txn, self.model).complete:
            return None
        dropped = index.drop_vectors_except(txn, self.model)
        now = self.now()
        switched = EmbedderStateRow(active=self.model, active_spec=self.spec, switched_at=now)
        index.put_embedder_state(txn, switched)
        txn.record_audit(AuditRow(now, "reembed", "reembed", None, dropped, json.dumps({"vectors": dropped})))
        return switched

    def _building(self, txn: WriteTransaction, lock: str) -> EmbedderStateRow:
        """The tenant's state, if it still records this build (else another build or a
        switch replaced it, and this one stops)."""
        state = self.search.index.embedder_state(txn, lock)
        if state is None or state.building != self.model:
            raise ConflictError(f"the build of {self.model!r} for tenant {self.tenant!r} was replaced by "
                                f"{None if state is None else state.building!r}", field="embedder", value=self.model)
        return state

    def _put(self, put: Callable[[WriteTransaction, str, Any], None], items: Any, txn: WriteTransaction) -> None:
        self._building(txn, "share")
        put(txn, self.model, items)

    # the build ----------------------------------------------------------------------------

    def _build(self, batch: int, progress: Progress | None) -> None:
        """Every row still without a vector of the model gets one, a batch at a time."""
        self._after = 0  # episodes: each batch goes on from the last key of the one before
        phases: Sequence[Callable[[Reader, int], list[tuple[Any, str]]]] = (
            self._missing_episodes, self._missing_facts, self._missing_chunks)
        puts: Sequence[Callable[[WriteTransaction, str, Any], None]] = (
            self.search.index.put_episode_vectors, self.search.index.put_assertion_vectors,
                _put_chunks)
        for missing, put in zip(phases, puts, strict=True):
            while True:
                with self.search.backend.read(self.tenant) as reader:
                    found = missing(reader, batch)
                if not found:
                    break
                vectors = embed_checked(self.embedder, [text for _, text in found])
                items = [(key, vectors[i]) for i, (key, _) in enumerate(found)]
                self.search.backend.run_write(self.tenant, partial(self._put, put, items))
                if progress is not None:
                    progress(status(self.search, self.tenant))
                if len(found) < batch:
                    break

    def _missing_episodes(self, reader: Reader, batch: int) -> list[tuple[Any, str]]:
        found = self.search.index.episodes_without_vectors(reader, self.model, batch, self._after)
        if found:
            self._after = found[-1].key
        return [(stored.row.episode_id, embedding_text(stored.row)) for stored in found]

    def _missing_facts(self, reader: Reader, batch: int) -> list[tuple[Any, str]]:
        return list(self.search.index.assertions_without_vectors(reader, self.model, batch))

    def _missing_chunks(self, reader: Reader, batch: int) -> list[tuple[Any, str]]:
        return [(chunk.chunk_id, chunk.embedded_text)
                for chunk in reader.documents().chunks_without_vectors(self.model, batch)]


def _put_chunks(txn: WriteTransaction, model: str, items: Any) -> None:
    txn.documents().put_vectors(model, items)


def status(search: SearchService, tenant: str) -> IndexStatus:
    """The tenant's embedders and how far the one being built (else the one search uses) is."""
    with search.backend.read(tenant) as reader:
        state = search.index.embedder_state(reader)
        search.choice.saw(search.index, tenant, state)
        recorded = state is not None and state.active is not None
        searching = state.active if state is not None and state.active is not None else (
            None if search.embedder is None else search.embedder.name)
        counted = state.building if state is not None and state.building is not None else searching
        progress = search.index.vector_progress(reader, counted or "")  # no model: the rows, none embedded
    return IndexStatus(
        tenant, searching, recorded, None if state is None else state.building,
        None if state is None or state.building_since is None else from_micros(state.building_since),
        None if state is None or state.switched_at is None else from_micros(state.switched_at),
        progress.episodes, progress.episodes_embedded, progress.facts, progress.facts_embedded, progress.chunks,
        progress.chunks_embedded,
    )
