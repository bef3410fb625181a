"""A broken embedder or bad argument: a clear sgam error, ledger and indexes unchanged."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from sgam import Memory, StoreError, ValidationError
from sgam.search import Model2VecEmbedder, OpenAIEmbedder, load_embedder

from ..conftest import MODEL_DIR, Store

T = "acme"


class Failing:
    name = "test:failing"
    dimension = 8

    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("model server unreachable")


class WrongDimension:
    name = "test:wrong"
    dimension = 8

    def embed(self, texts: Sequence[str]) -> Any:
        return np.ones((len(texts), 5), dtype=np.float32)


def _counts(db: Store) -> tuple[int, int, int]:
    return (db.count("SELECT count(*) FROM episodes"),
            db.full_text("episodes", "SELECT count(*) FROM episodes WHERE search <> ''"),
            db.count("SELECT count(*) FROM episode_vectors"))


@pytest.mark.parametrize("embedder", [Failing(), WrongDimension()])
def test_failing_embedder_leaves_everything_unchanged(store: Store, embedder: Any) -> None:
    with Memory(store.url, embedder=embedder) as memory:
        with pytest.raises(StoreError, match="embedder 'test:"):
            memory.add_episode(T, "e1", "2024-01-01T00:00:00Z", "hello")
        with pytest.raises(StoreError):
            memory.add_episodes(T, [{"id": "e2", "at": "2024-01-01T00:00:00Z", "text": "x"}])
        assert _counts(store) == (0, 0, 0)
        with pytest.raises(StoreError):
            memory.search(T, "hello")


def test_bad_episode_in_batch_names_its_index(store: Store) -> None:
    with Memory(store.url) as memory:
        with pytest.raises(ValidationError, match=r"episodes\[1\]\.at"):
            memory.add_episodes(T, [{"id": "a", "at": "2024-01-01T00:00:00Z", "text": "x"},
                                    {"id": "b", "at": "yesterday", "text": "y"}])
        assert _counts(store) == (0, 0, 0)


@pytest.mark.parametrize("question", ["", "   ", "x" * 5000, None])
def test_empty_or_enormous_question(store_url: str, question: Any) -> None:
    with Memory(store_url) as memory, pytest.raises(ValidationError, match="question"):
        memory.recall(T, question)


@pytest.mark.parametrize("budget", [0, -5, 10, True, 1.5, 10**9])
def test_bad_budget(store_url: str, budget: Any) -> None:
    with Memory(store_url) as memory, pytest.raises(ValidationError, match="budget"):
        memory.recall(T, "anything", budget=budget)


def test_missing_model_path_and_bad_spec(tmp_path: Any) -> None:
    with pytest.raises(ValidationError, match="model_path"):
        Model2VecEmbedder(tmp_path / "nowhere")
    with pytest.raises(ValidationError, match="SGAM_EMBEDDER"):
        load_embedder("word2vec:/x")
    with pytest.raises(ValidationError, match="SGAM_EMBEDDER"):
        load_embedder("openai:text-embedding-3-small")


def test_env_embedder_with_missing_model_fails_clearly(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_EMBEDDER", "model2vec:/no/such/model")
    with pytest.raises(ValidationError, match="model_path"):
        Memory.from_env(store_url)


@pytest.mark.skipif(not MODEL_DIR.is_dir(), reason="shared static model not present")
def test_real_static_model_finds_paraphrase(store_url: str) -> None:
    with Memory(store_url, embedder=Model2VecEmbedder(MODEL_DIR)) as memory:
        memory.add_episodes(T, [
            {"id": "e1", "at": "2024-01-01T00:00:00Z", "text": "My dog loves running on the beach"},
            {"id": "e2", "at": "2024-01-01T00:00:01Z", "text": "The quarterly tax filing is due soon"},
        ])
        hits = memory.search(T, "puppy playing by the sea", config="vector")
        assert hits[0].episode_id == "e1"


def _endpoint(status: int, dimension: int) -> Any:
    import httpx

    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert request.url.path == "/v1/embeddings" and request.headers["authorization"] == "Bearer k"
        data = [{"index": i, "embedding": [float(len(text))] + [1.0] * (dimension - 1)}
                for i, text in enumerate(body["input"])]
        return httpx.Response(status, json={"data": list(reversed(data))})

    return httpx.MockTransport(handle)


def test_openai_compatible_endpoint(store_url: str) -> None:
    embedder = OpenAIEmbedder("m", 4, base_url="http://local/v1", api_key="k", transport=_endpoint(200, 4))
    with Memory(store_url, embedder=embedder) as memory:
        memory.add_episodes(T, [{"id": "a", "at": "2024-01-01T00:00:00Z", "text": "hi"},
                                {"id": "b", "at": "2024-01-01T00:00:00Z", "text": "hello there"}])
        assert len(memory.search(T, "hello", config="vector")) == 2


@pytest.mark.parametrize(("status", "dimension"), [(500, 4), (200, 3)])
def test_openai_endpoint_failure_or_wrong_dimension(store: Store, status: int, dimension: int) -> None:
    embedder = OpenAIEmbedder("m", 4, base_url="http://local/v1", api_key="k",
                              transport=_endpoint(status, dimension))
    with Memory(store.url, embedder=embedder) as memory:
        with pytest.raises(StoreError, match="openai:m"):
            memory.add_episode(T, "a", "2024-01-01T00:00:00Z", "hi")
        assert _counts(store) == (0, 0, 0)


@pytest.mark.parametrize("question", ["tortoise & !passport | (june", "zebulon:* <-> 'x' \"y", "OR AND NOT -"])
def test_query_syntax_in_question_is_plain_text(store_url: str, question: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode(T, "e1", "2024-01-01T00:00:00Z", "I adopted a tortoise named Zebulon")
        hits = memory.search(T, question)
        assert [hit.episode_id for hit in hits] in ([], ["e1"])
        if "tortoise" in question or "zebulon" in question:
            assert [hit.episode_id for hit in hits] == ["e1"]
