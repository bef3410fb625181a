"""WordLlama ships its weights in the wheel: it loads offline and finds paraphrases."""

from __future__ import annotations

import numpy as np
import pytest

from sgam import Memory, ValidationError
from sgam.search import ConcatEmbedder, WordLlamaEmbedder, embed_checked, load_embedder

from ..conftest import HashingEmbedder

T = "acme"


def test_loads_from_the_installed_package_and_embeds() -> None:
    embedder = load_embedder("wordllama")
    assert isinstance(embedder, WordLlamaEmbedder)
    assert embedder.name == "wordllama:l2_supercat@256" and embedder.dimension == 256
    vectors = embed_checked(embedder, ["my dog loves the beach", "a puppy playing by the sea", "tax forms"])
    assert vectors.shape == (3, 256)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_unknown_configuration_is_refused() -> None:
    with pytest.raises(ValidationError, match="embedder"):
        WordLlamaEmbedder("no_such_model")
    with pytest.raises(ValidationError, match="SGAM_EMBEDDER"):
        load_embedder("wordllama:l2_supercat@big")


def test_combined_embedder_averages_the_cosines() -> None:
    combined = ConcatEmbedder([HashingEmbedder(), load_embedder("wordllama")])
    assert combined.dimension == 64 + 256 and combined.name == "test:hashing+wordllama:l2_supercat@256"
    texts = ["my dog loves the beach", "a puppy playing by the sea"]
    joined = embed_checked(combined, texts)
    parts = [embed_checked(HashingEmbedder(), texts), embed_checked(load_embedder("wordllama"), texts)]
    expected = np.mean([p[0] @ p[1] for p in parts])
    assert joined[0] @ joined[1] == pytest.approx(expected, abs=1e-5)
    with pytest.raises(ValidationError, match="embedder"):
        ConcatEmbedder([HashingEmbedder()])


def test_search_with_wordllama_finds_a_paraphrase(store_url: str) -> None:
    with Memory(store_url, embedder=load_embedder("wordllama")) as memory:
        memory.add_episodes(T, [
            {"id": "e1", "at": "2024-01-01T00:00:00Z", "text": "My dog loves running on the beach"},
            {"id": "e2", "at": "2024-01-01T00:00:01Z", "text": "The quarterly tax filing is due soon"},
        ])
        assert memory.search(T, "puppy playing by the sea", config="vector")[0].episode_id == "e1"
