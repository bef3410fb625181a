"""Fixtures of the LangGraph store tests: an ``SgamStore`` on each backend, with and
without an index, and a deterministic embedding that needs no model."""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import cache

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from sgam import Memory
from sgam.langgraph import SgamStore

TENANT = "acme"


class LetterEmbeddings(Embeddings):
    """Texts as their character counts pushed through a fixed random projection, so
    texts sharing characters are close and none of it needs a model."""

    def __init__(self, dims: int = 256) -> None:
        self.dims = dims

    @cache  # noqa: B019 - a handful of characters per test, one projection each
    def _letter(self, letter: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(letter.encode()).digest()[:8], "big")
        return np.random.default_rng(seed).standard_normal(self.dims)

    def _one(self, text: str) -> list[float]:
        counts = Counter(text)
        vector = np.zeros(self.dims)
        for letter, count in counts.items():
            vector += count * self._letter(letter)
        norm = float(np.linalg.norm(vector))
        return [float(x) for x in (vector / norm if norm else vector)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


@pytest.fixture
def embeddings() -> LetterEmbeddings:
    return LetterEmbeddings()


@pytest.fixture
def items(memory: Memory) -> SgamStore:
    """An ``SgamStore`` without an index, on each backend."""
    return SgamStore(memory, tenant=TENANT)


@pytest.fixture
def vector_store(memory: Memory, embeddings: LetterEmbeddings) -> SgamStore:
    return SgamStore(memory, tenant=TENANT, index={"dims": embeddings.dims, "embed": embeddings},
                     ttl={"default_ttl": 2, "refresh_on_read": True})


def indexed_store(memory: Memory, embeddings: LetterEmbeddings, fields: list[str] | None) -> SgamStore:
    return SgamStore(memory, tenant=TENANT, index={"dims": embeddings.dims, "embed": embeddings, "fields": fields})
