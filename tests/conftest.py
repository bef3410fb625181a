"""Shared fixtures: real SQLite files, and a deterministic embedder that needs no model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

MODEL_DIR = Path("/work/shared/models/minilm-l6-static-256")
LOCOMO = Path("/work/shared/data/locomo/locomo5-dev.json")


class HashingEmbedder:
    """Bag of words hashed into 64 buckets: similar wording, similar vector."""

    name = "test:hashing"
    dimension = 64

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        return out


@pytest.fixture(autouse=True)
def _no_env_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SGAM_EMBEDDER", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def hashing() -> HashingEmbedder:
    return HashingEmbedder()
