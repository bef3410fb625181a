"""Shared fixtures: real SQLite files with a clock the test controls, and a deterministic
embedder that needs no model.

``memory`` is deliberately simple so that it can be parameterised over backends.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sgam import Memory

SHARED = Path(__file__).resolve().parents[2] / "shared"
MODEL_DIR = SHARED / "models" / "minilm-l6-static-256"
LOCOMO = SHARED / "data" / "locomo" / "locomo5-dev.json"


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


START = datetime(2026, 7, 1, tzinfo=UTC)


class ManualClock:
    """Transaction time that moves only when the test says so."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def memory(tmp_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory(f"sqlite:///{tmp_path / 'sgam.db'}", clock=clock) as fresh:
        yield fresh
