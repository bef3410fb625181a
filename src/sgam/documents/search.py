"""Search over documents: keyword (FTS5 / tsvector) and vector candidates over chunks of
live documents, fused by RRF. A hit cites its path, revision and line range.

Chunks are written with each revision, in its transaction, so the keyword index is
always exact. Vectors are computed after the change commits (as fact vectors are), so
a search never writes; a change stands even if the embedder fails then (its chunks are
embedded by the next change or ``Documents.index``), and a vector dies with its chunk
when the next revision or an erasure replaces it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from functools import partial

import numpy as np
import numpy.typing as npt

from ..search.embedders import Embedder, embed_checked, embed_query
from ..search.fusion import reciprocal_rank_fusion
from ..search.scope import mentions
from ..search.service import revoked_subjects
from ..search.text import check_question, keywords
from ..store import Backend, ChunkRow, KeywordChunks, ReadAhead, Reader, WriteTransaction
from ._model import DocumentHit

CANDIDATES = 50
RRF_K = 20.0
VECTOR_WEIGHT = 0.5
EMBED_BATCH = 256


def index_vectors(backend: Backend, embedders: Sequence[Embedder], tenant: str, rounds: int = 20,
                  wanted: Callable[[WriteTransaction], set[str]] | None = None) -> int:
    """Embed chunks without a vector of each of ``embedders``, a batch per transaction;
    ``wanted``: the models the unit of work may still store (others are left out)."""
    done = 0
    for embedder in embedders:
        for _ in range(rounds):
            with backend.read(tenant) as reader:
                missing = reader.documents().chunks_without_vectors(embedder.name, EMBED_BATCH)
            if not missing:
                break
            vectors = embed_checked(embedder, [chunk.embedded_text for chunk in missing])
            items = [(chunk.chunk_id, vectors[i]) for i, chunk in enumerate(missing)]
            if not backend.run_write(tenant, partial(_put, embedder.name, items, wanted)):
                break
            done += len(missing)
    return done


def _put(model: str, items: list[tuple[int, npt.NDArray[np.float32]]],
         wanted: Callable[[WriteTransaction], set[str]] | None, txn: WriteTransaction) -> bool:
    if wanted is not None and model not in wanted(txn):
        return False
    txn.documents().put_vectors(model, items)
    return True


def names_revoked(chunk: ChunkRow, revoked: set[str]) -> bool:
    """Whether a passage is about a subject whose consent is revoked: it names it as a
    word of its text or of its document's path, decided as search decides it for an
    episode's text and speaker (``search.scope.mentions``)."""
    return bool(revoked) and mentions(chunk.path, chunk.text, revoked)


def passage_reads(query: str) -> list[ReadAhead]:
    """What ``search_documents`` asks first in the caller's read when the caller has read
    the revoked subjects (recall has), for that read to send ahead: the keyword candidates."""
    terms = keywords(query)
    return [KeywordChunks(tuple(terms), CANDIDATES)] if terms else []


def search_documents(
    backend: Backend, embedder: Embedder | None, tenant: str, query: str, *, limit: int,
    vector_floor: float | None = None, purpose: str | None = None, revoked: set[str] | None = None,
    reader: Reader | None = None, confirm: Callable[[Reader], Embedder | None] | None = None,
) -> list[DocumentHit]:
    """The ``limit`` best passages for ``query``, none naming a subject whose consent for
    ``purpose`` is revoked (``revoked``: those subjects, when the caller has read them).
    ``vector_floor`` drops vector candidates below that cosine (recall uses it: without a
    keyword match, closeness must be real). ``reader``: the caller's read of ``tenant``
    to search in (recall's, so its passages come from the snapshot its facts do); by
    default a read of its own. ``embedder``: the one the tenant's search uses as last
    seen; ``confirm``, the one it uses in the read's snapshot."""
    check_question(query, "query")
    terms = keywords(query)
    vector = None if embedder is None else embed_query(embedder, query)
    with nullcontext(reader) if reader is not None else backend.read(tenant) as scope:
        if revoked is None:
            revoked = revoked_subjects(scope, purpose)
        by_keyword = scope.documents().keyword_chunks(terms, CANDIDATES) if terms else []
        by_vector = [] if vector is None or embedder is None else scope.documents().vector_chunks(
            embedder.name, vector, CANDIDATES)
        if confirm is not None and (chosen := confirm(scope)) is not embedder:  # switched since last seen
            by_vector = [] if chosen is None else scope.documents().vector_chunks(
                chosen.name, embed_query(chosen, query), CANDIDATES)
    if revoked:
        by_keyword = [(chunk, score) for chunk, score in by_keyword if not names_revoked(chunk, revoked)]
        by_vector = [(chunk, score) for chunk, score in by_vector if not names_revoked(chunk, revoked)]
    if vector_floor is not None:
        by_vector = [(chunk, score) for chunk, score in by_vector if score >= vector_floor]
    chunks = {chunk.chunk_id: chunk for chunk, _ in by_keyword + by_vector}
    fused = reciprocal_rank_fusion([[c.chunk_id for c, _ in by_keyword], [c.chunk_id for c, _ in by_vector]],
                                   k=RRF_K, weights=[1.0, VECTOR_WEIGHT])
    best = sorted(fused, key=lambda key: (-fused[key], key))[:limit]
    return [DocumentHit(chunks[key].path, chunks[key].revision, chunks[key].start_line, chunks[key].end_line,
                        chunks[key].text, round(fused[key], 6)) for key in best]
