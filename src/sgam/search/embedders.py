"""Embedders: text to unit vectors, behind one small protocol.

Every embedder is checked at the boundary (``embed_checked``): a failure or a vector of
the wrong shape becomes a ``StoreError`` before any write transaction opens, so a broken
model can never leave the ledger and its indexes disagreeing.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx
import numpy as np
import numpy.typing as npt

from .._core.errors import SgamError, StoreError, ValidationError

Vectors = npt.NDArray[np.float32]

ENV_VAR = "SGAM_EMBEDDER"


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into ``(len(texts), dimension)`` vectors."""

    @property
    def name(self) -> str:
        """Stable model identifier; vectors of different models are never compared."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]: ...


def embed_checked(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Embed and L2-normalise, turning any failure into a ``StoreError`` naming the model."""
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    try:
        raw = embedder.embed(list(texts))
    except SgamError:
        raise
    except Exception as exc:  # the embedder is foreign code: any failure is its failure
        raise StoreError(f"embedder {embedder.name!r} failed: {exc}", field="embedder",
                         value=embedder.name) from exc
    array = np.asarray(raw, dtype=np.float32)
    expected = (len(texts), embedder.dimension)
    if array.shape != expected:
        raise StoreError(
            f"embedder {embedder.name!r} returned shape {array.shape}, expected {expected}",
            field="embedder", value=embedder.name,
        )
    if not np.all(np.isfinite(array)):
        raise StoreError(f"embedder {embedder.name!r} returned non-finite values", field="embedder",
                         value=embedder.name)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (array / norms).astype(np.float32)
    return unit


QUERY_CACHE = 32
_queries: OrderedDict[tuple[int, str], tuple[Embedder, Vectors]] = OrderedDict()
_queries_lock = threading.Lock()


def embed_query(embedder: Embedder, text: str) -> Vectors:
    """One question's unit vector, remembered for the next few questions: a recall asks
    for the same question's vector three times (facts, episodes, documents). Entries keep
    their embedder alive, so a key's ``id`` always names the same object; the vector is
    read-only because callers share it."""
    key = (id(embedder), text)
    with _queries_lock:
        entry = _queries.get(key)
        if entry is not None and entry[0] is embedder:
            _queries.move_to_end(key)
            return entry[1]
    vector: Vectors = embed_checked(embedder, [text])[0]
    vector.setflags(write=False)
    with _queries_lock:
        _queries[key] = (embedder, vector)
        while len(_queries) > QUERY_CACHE:
            _queries.popitem(last=False)
    return vector


class Model2VecEmbedder:
    """A local static Model2Vec model: numpy only, thousands of texts a second on one core."""

    def __init__(self, path: str | Path) -> None:
        folder = Path(path)
        if not (folder / "config.json").is_file() and not (folder / "model.safetensors").is_file():
            raise ValidationError("model_path", str(path), "no Model2Vec model in that folder")
        try:
            from model2vec import StaticModel
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ValidationError("embedder", "model2vec", "needs `pip install 'sgam[embeddings]'`") from exc
        # A model folder's README without a metadata block makes huggingface_hub warn on
        # every load; it says nothing about the model, so it is kept off the user's screen.
        card_log = logging.getLogger("huggingface_hub.repocard")
        level = card_log.level
        card_log.setLevel(logging.ERROR)
        try:
            self._model = StaticModel.from_pretrained(str(folder))
        finally:
            card_log.setLevel(level)
        self._name = f"model2vec:{folder.name}"
        self._dimension = int(self._model.dim)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        return np.asarray(self._model.encode(list(texts), batch_size=1024), dtype=np.float32)


class WordLlamaEmbedder:
    """WordLlama's static token embeddings (``pip install wordllama``): the weights ship in
    the wheel, so it works offline with nothing to download or point at."""

    def __init__(self, config: str = "l2_supercat", dimension: int = 256) -> None:
        try:
            import wordllama  # type: ignore[import-untyped]
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ValidationError("embedder", "wordllama", "needs `pip install wordllama`") from exc
        folder = Path(wordllama.__file__).parent  # its weights/ and tokenizers/ folders
        try:
            self._model: Any = wordllama.WordLlama.load(config, cache_dir=folder, dim=dimension,
                                                        disable_download=True)
        except (FileNotFoundError, ValueError, AttributeError) as exc:
            raise ValidationError("embedder", f"wordllama:{config}@{dimension}",
                                  f"not in the installed wordllama package ({exc})") from exc
        self._name = f"wordllama:{config}@{dimension}"
        self._dimension = dimension

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        return np.asarray(self._model.embed(list(texts), batch_size=256), dtype=np.float32)


class ConcatEmbedder:
    """Several embedders as one: unit vectors side by side, scaled so the cosine of two
    concatenations is the mean of the parts' cosines (a fusion of the models)."""

    def __init__(self, parts: Sequence[Embedder]) -> None:
        if len(parts) < 2:
            raise ValidationError("embedder", len(parts), "a combination needs at least two embedders")
        self._parts = list(parts)
        self._name = "+".join(part.name for part in parts)
        self._dimension = sum(part.dimension for part in parts)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        scale = 1.0 / np.sqrt(len(self._parts))
        return np.hstack([embed_checked(part, texts) * scale for part in self._parts])


class SentenceTransformerEmbedder:
    """A sentence-transformers model (optional: torch is heavy, so it is imported lazily)."""

    def __init__(self, model: str) -> None:
        try:
            module: Any = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ValidationError("embedder", model, "needs `pip install sentence-transformers`") from exc
        try:
            self._model: Any = module.SentenceTransformer(model)
        except Exception as exc:
            raise ValidationError("embedder", model, f"could not load the model ({exc})") from exc
        self._name = f"sentence-transformers:{model}"
        self._dimension = int(self._model.get_sentence_embedding_dimension())

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        return np.asarray(self._model.encode(list(texts), batch_size=64), dtype=np.float32)


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, LM Studio...)."""

    def __init__(self, model: str, dimension: int, *, base_url: str = "https://api.openai.com/v1",
                 api_key: str | None = None, timeout: float = 30.0, batch_size: int = 256,
                 transport: httpx.BaseTransport | None = None) -> None:
        if dimension < 1:
            raise ValidationError("dimension", dimension, "must be a positive integer")
        self._model = model
        self._dimension = dimension
        self._batch = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout,
                                    transport=transport)

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            response = self._client.post(
                "/embeddings", json={"model": self._model, "input": list(texts[start:start + self._batch])}
            )
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows.extend(item["embedding"] for item in data)
        return np.asarray(rows, dtype=np.float32)


def load_embedder(spec: str) -> Embedder:
    """``wordllama`` (or ``wordllama:config@dimension``), ``model2vec:/path``,
    ``sentence-transformers:name`` or ``openai:model@dimension`` (the endpoint from
    ``OPENAI_BASE_URL``, the key from ``OPENAI_API_KEY``); ``A+B`` combines embedders."""
    if "+" in spec:
        return ConcatEmbedder([load_embedder(part) for part in spec.split("+")])
    kind, _, rest = spec.partition(":")
    if kind == "wordllama":
        config, _, dim = (rest or "l2_supercat").partition("@")
        if dim and not dim.isdigit():
            raise ValidationError(ENV_VAR, spec, "looks like wordllama or wordllama:l2_supercat@256")
        return WordLlamaEmbedder(config or "l2_supercat", int(dim) if dim else 256)
    if not rest:
        raise ValidationError(ENV_VAR, spec, "looks like model2vec:/path/to/model")
    if kind == "model2vec":
        return Model2VecEmbedder(rest)
    if kind == "sentence-transformers":
        return SentenceTransformerEmbedder(rest)
    if kind == "openai":
        model, _, dim = rest.rpartition("@")
        if not model or not dim.isdigit():
            raise ValidationError(ENV_VAR, spec, "looks like openai:text-embedding-3-small@1536")
        return OpenAIEmbedder(model, int(dim), base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
                              api_key=os.environ.get("OPENAI_API_KEY"))
    raise ValidationError(ENV_VAR, spec, "kind must be wordllama, model2vec, sentence-transformers or openai")


def embedder_from_env() -> Embedder | None:
    """The embedder named by ``SGAM_EMBEDDER``, or None (keyword-only search)."""
    spec = os.environ.get(ENV_VAR, "").strip()
    return load_embedder(spec) if spec else None
