"""Queries with an ``IndexConfig``: vectors per configured field (or per ``index=``
list), cosine scores, keyword and vector rankings fused (ported from LangGraph's store
tests, with a deterministic embedding)."""

from __future__ import annotations

import asyncio
import math

import pytest

from sgam import Memory, ValidationError
from sgam.langgraph import SgamStore

from .conftest import TENANT, LetterEmbeddings, indexed_store


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_configuration(vector_store: SgamStore, embeddings: LetterEmbeddings) -> None:
    assert vector_store.index_config is not None
    assert vector_store.index_config["dims"] == embeddings.dims
    assert vector_store.index_config["embed"] is embeddings


def test_insert_and_query(vector_store: SgamStore) -> None:
    for key, value in [("doc1", {"text": "short text"}), ("doc2", {"text": "longer text document"}),
                       ("doc3", {"text": "longest text document here"}),
                       ("doc4", {"description": "text in description"}),
                       ("doc5", {"content": "text in content field"}), ("doc6", {"body": "text in body field"})]:
        vector_store.put(("test",), key, value)
    found = [r.key for r in vector_store.search(("test",), query="long text")]
    assert "doc2" in found and "doc3" in found and len(found) == 6
    assert all(r.score is not None for r in vector_store.search(("test",), query="long text"))


def test_update_replaces_the_vectors(vector_store: SgamStore) -> None:
    vector_store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    vector_store.put(("test",), "doc2", {"text": "something about dogs"})
    vector_store.put(("test",), "doc3", {"text": "text about birds"})
    initial = vector_store.search(("test",), query="Zany Xerxes")
    assert initial[0].key == "doc1" and initial[0].score is not None
    vector_store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = next(r.score for r in vector_store.search(("test",), query="Zany Xerxes") if r.key == "doc1")
    assert after is not None and after < initial[0].score
    for r in vector_store.search(("test",), query="new text about dogs"):
        if r.key == "doc1":
            assert r.score is not None and r.score > after
    vector_store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert "doc4" not in [r.key for r in vector_store.search(("test",), query="new text about dogs", limit=3)]


@pytest.mark.parametrize("refresh_ttl", [True, False])
def test_query_with_filters(vector_store: SgamStore, refresh_ttl: bool) -> None:
    for key, value in [("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
                       ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
                       ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
                       ("doc4", {"text": "blue car", "color": "blue", "score": 3.5})]:
        vector_store.put(("test",), key, value)
    found = vector_store.search(("test",), query="apple", filter={"color": "red"}, refresh_ttl=refresh_ttl)
    assert [r.key for r in found][:1] == ["doc1"] and len(found) == 2
    found = vector_store.search(("test",), query="car", filter={"color": "red"}, refresh_ttl=refresh_ttl)
    assert [r.key for r in found][:1] == ["doc2"] and len(found) == 2
    found = vector_store.search(("test",), query="bbbbluuu", filter={"score": {"$gt": 3.2}}, refresh_ttl=refresh_ttl)
    assert len(found) == 3 and found[0].key == "doc4"
    found = vector_store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [r.key for r in found] == ["doc3"]


def test_query_paging(vector_store: SgamStore) -> None:
    for i in range(5):
        vector_store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    first = vector_store.search(("test",), query="test", limit=2)
    second = vector_store.search(("test",), query="test", limit=2, offset=2)
    everything = vector_store.search(("test",), query="test", limit=10)
    assert len(first) == len(second) == 2 and len(everything) == 5
    assert [r.key for r in first + second] == [r.key for r in everything][:4]


def test_query_edge_cases(vector_store: SgamStore) -> None:
    vector_store.put(("test",), "doc1", {"text": "test document"})
    for query in ["", None, "test " * 100, "test!@#$%^&*()", "'; DROP TABLE store_items; --", '"OR"*']:
        assert len(vector_store.search(("test",), query=query)) == 1


def test_fields_give_one_vector_each(memory: Memory, embeddings: LetterEmbeddings) -> None:
    store = indexed_store(memory, embeddings, ["key0", "key1", "key3"])
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
    found = store.search(("test",), query="xxx")
    assert len(found) == 2 and found[0].score == pytest.approx(found[1].score, abs=1e-3)
    best = found[0].score
    for query, winner in [("uuu", "doc2"), ("zzz", "doc1")]:
        found = store.search(("test",), query=query)
        assert found[0].key == winner and found[0].score > found[1].score  # type: ignore[operator]
        assert found[0].score == pytest.approx(best, abs=1e-3)
    found = store.search(("test",), query="www")  # key2 is not indexed
    assert all(r.score is not None and r.score < best for r in found)


def test_index_list_on_put_overrides_the_fields(memory: Memory, embeddings: LetterEmbeddings) -> None:
    store = indexed_store(memory, embeddings, ["key17"])
    store.put(("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc", "key3": "ddd"}, index=["key0", "key1"])
    store.put(("test",), "doc4", {"key0": "eee", "key1": "bbb", "key2": "fff", "key3": "ggg"}, index=["key1", "key3"])
    for query, winner in [("aaa", "doc3"), ("ggg", "doc4")]:
        found = store.search(("test",), query=query)
        assert found[0].key == winner and found[0].score > found[1].score  # type: ignore[operator]
    found = store.search(("test",), query="bbb")
    assert found[0].score == pytest.approx(found[1].score, abs=1e-3)
    assert all(r.score is not None and r.score < 0.9 for r in store.search(("test",), query="ccc"))
    store.put(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    plain = store.search(("test",))
    assert len(plain) == 3 and all(r.score is None for r in plain)
    found = store.search(("test",), query="hhh")
    assert [r.key for r in found][-1] == "doc5" and found[-1].score is None  # unindexed items follow


@pytest.mark.parametrize("query", ["aaa", "bbb", "ccc", "abcd", "poisson"])
def test_score_is_the_cosine(memory: Memory, embeddings: LetterEmbeddings, query: str) -> None:
    store = indexed_store(memory, embeddings, ["key0"])
    store.put(("test",), "doc", {"key0": "aaa"}, index=["key0", "key1"])
    found = store.search((), query=query)
    expected = _cosine(embeddings.embed_query(query), embeddings.embed_query("aaa"))
    assert len(found) == 1 and found[0].score == pytest.approx(expected, abs=1e-3)


def test_non_ascii(vector_store: SgamStore) -> None:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for key, text in enumerate(texts, start=1):
        vector_store.put(("user_123", "memories"), str(key), {"text": text})
    for key, text in enumerate(texts, start=1):
        assert vector_store.search(("user_123", "memories"), query=text)[0].key == str(key)


def test_async_embedding_function(memory: Memory, embeddings: LetterEmbeddings) -> None:
    async def embed(texts: list[str]) -> list[list[float]]:
        return embeddings.embed_documents(texts)

    store = SgamStore(memory, tenant=TENANT, index={"dims": embeddings.dims, "embed": embed, "fields": ["text"]})

    async def run() -> None:
        await store.aput(("docs",), "a", {"text": "python tutorial"})
        await store.aput(("docs",), "b", {"text": "typescript guide"})
        found = await store.asearch(("docs",), query="python tutorial")
        assert found[0].key == "a" and found[0].score == pytest.approx(1.0, abs=1e-3)

    asyncio.run(run())


def test_sgam_embedder_as_embed(memory: Memory, hashing: object) -> None:
    store = SgamStore(memory, tenant=TENANT, index={"dims": 64, "embed": hashing, "fields": ["text"]})  # type: ignore[typeddict-item]
    store.put(("docs",), "a", {"text": "passport renewal deadline"})
    store.put(("docs",), "b", {"text": "dinner with friends"})
    assert store.search(("docs",), query="passport deadline")[0].key == "a"


def test_wrong_dimensions_are_refused(memory: Memory, embeddings: LetterEmbeddings) -> None:
    store = SgamStore(memory, tenant=TENANT, index={"dims": 3, "embed": embeddings})
    with pytest.raises(ValidationError):
        store.put(("docs",), "a", {"text": "x"})
    assert store.get(("docs",), "a") is None
    with pytest.raises(ValidationError):
        SgamStore(memory, tenant=TENANT, index={"dims": 0, "embed": embeddings})
