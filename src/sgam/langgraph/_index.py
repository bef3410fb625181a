"""What a put makes searchable, honouring LangGraph's ``IndexConfig`` and ``index=``.

Keyword search always indexes text: the configured fields (or the ``index=`` list of a
put), else every string and number in the value. Vectors exist only with an
``IndexConfig``: one per text found at each field path, as LangGraph embeds them, and an
item's similarity is its best field's cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings
from langgraph.store.base import IndexConfig, ensure_embeddings, get_text_at_path, tokenize_path

from .._core.errors import ValidationError

IndexSpec = Literal[False] | list[str] | None


@dataclass(frozen=True, slots=True)
class Indexed:
    """An item's search entry: keyword text, and its vectors as one float32 matrix."""

    text: str | None
    vectors: bytes | None = None
    dims: int | None = None


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for inner in value.values() for text in _leaves(inner)]
    if isinstance(value, list):
        return [text for inner in value for text in _leaves(inner)]
    if value is None or isinstance(value, bool):
        return []
    return [str(value)]


class _SgamEmbeddings(Embeddings):
    """An sgam ``Embedder`` (``.embed(texts)`` → matrix) seen as LangChain ``Embeddings``."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in np.asarray(self._embedder.embed(texts), dtype=np.float32)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class ItemIndex:
    """The store's index configuration, resolved once."""

    def __init__(self, config: IndexConfig | None) -> None:
        self.config = config
        self.embeddings: Embeddings | None = None
        self.dims: int | None = None
        self.fields: list[str] = ["$"]
        if config is not None:
            dims = config.get("dims")
            if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
                raise ValidationError("index.dims", dims, "must be a positive integer")
            embed = config.get("embed")
            if embed is not None and hasattr(embed, "embed") and hasattr(embed, "dimension"):
                self.embeddings = _SgamEmbeddings(embed)
            else:
                self.embeddings = ensure_embeddings(embed)
            self.dims = dims
            self.fields = list(config.get("fields") or ["$"])
            for path in self.fields:
                _tokens(path, "index.fields")

    def texts(self, value: dict[str, Any], index: IndexSpec) -> tuple[list[str], list[str]]:
        """(keyword texts, texts to embed) of a value put with ``index``."""
        if index is False:
            return [], []
        if self.config is None:
            return _leaves(value), []
        paths = self.fields if index is None else list(index)
        keyword: list[str] = []
        embed: list[str] = []
        for path in paths:
            if path == "$":
                embed.append(get_text_at_path(value, "$")[0])
                keyword.extend(_leaves(value))
            else:
                found = get_text_at_path(value, _tokens(path, "index"))
                embed.extend(found)
                keyword.extend(found)
        return keyword, embed

    def check_index(self, index: object) -> IndexSpec:
        if index is None or index is False:
            return index
        if not isinstance(index, list) or not all(isinstance(path, str) for path in index):
            raise ValidationError("index", index, "must be False, None or a list of field paths")
        for path in index:
            _tokens(path, "index")
        return index

    def entry(self, keyword: Sequence[str], vectors: Sequence[Sequence[float]] | None) -> Indexed:
        text = " ".join(keyword) or None
        if not vectors:
            return Indexed(text)
        matrix = self.matrix(vectors, "embedding")
        return Indexed(text, matrix.tobytes(), int(matrix.shape[1]))

    def matrix(self, vectors: Sequence[Sequence[float]], field: str) -> npt.NDArray[np.float32]:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != self.dims:
            raise ValidationError(field, f"<{matrix.shape} array>", f"embeddings must have {self.dims} dimensions")
        if not np.all(np.isfinite(matrix)):
            raise ValidationError(field, "<embedding>", "embeddings must be finite numbers")
        return matrix


def _tokens(path: str, field: str) -> list[str]:
    try:
        return tokenize_path(path)
    except (ValueError, IndexError) as exc:
        raise ValidationError(field, path, f"is not a field path ({exc})") from None


def best_cosine(query: npt.NDArray[np.float32], blob: bytes, dims: int) -> float:
    """The highest cosine similarity between ``query`` and any of an item's vectors."""
    matrix = np.frombuffer(blob, dtype=np.float32).reshape(-1, dims)
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    dots = matrix @ query
    scores = np.where(norms > 0, dots / np.where(norms > 0, norms, 1.0), 0.0)
    return float(scores.max())
