"""A PostgreSQL recall holds one pooled connection, never a second inside the first: a
pool of N serves N concurrent recalls. A pool with no connection to give within its
timeout is ``BusyError`` (503 through the HTTP app), not a refused change."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sgam import BusyError, Memory
from sgam.store.postgres import PostgresBackend

from ..conftest import HashingEmbedder, PostgresUrls
from .conftest import serve

T = "acme"
QUESTION = "Where does Mira live? city"


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": f"e{i}", "at": f"2026-06-01T09:{i:02d}:00Z", "text": text}
        for i, text in enumerate(["Mira lives in Oslo.", "Ola likes tea.", "The passport deadline is July 15.",
                                  "Mira's city is Oslo, she said again."] * 5)
    ])
    memory.write(T, "mira", "city", "Oslo", "2026-06-01T09:00:00Z", "e0")


@contextmanager
def _pooled(postgres: PostgresUrls, size: int, timeout: float, embedder: Any = None) -> Iterator[Memory]:
    backend = PostgresBackend(postgres.app, min_size=size, max_size=size, pool_timeout=timeout)
    with Memory(backend=backend, embedder=embedder) as memory:
        yield memory


@pytest.mark.parametrize("embedded", [False, True], ids=["keyword", "keyword+vector"])
def test_one_recall_needs_one_connection(postgres: PostgresUrls, embedded: bool) -> None:
    embedder = HashingEmbedder() if embedded else None
    with _pooled(postgres, 1, 2.0, embedder) as memory:
        _seed(memory)
        recalled = memory.recall(T, QUESTION, budget=2000)
        assert "Oslo" in recalled.text and any(item.kind == "fact" for item in recalled.items)
        assert memory.search(T, "passport deadline", limit=5)
        assert memory.search_many(T, "passport deadline", {"a": "default", "b": "keyword"}, limit=5)["a"]


@pytest.mark.parametrize("embedded", [False, True], ids=["keyword", "keyword+vector"])
def test_n_concurrent_recalls_on_a_pool_of_n_all_succeed(postgres: PostgresUrls, embedded: bool) -> None:
    size, rounds = 8, 4
    embedder = HashingEmbedder() if embedded else None
    with _pooled(postgres, size, 5.0, embedder) as memory:
        _seed(memory)
        expected = memory.recall(T, QUESTION, budget=2000).text
        start = threading.Barrier(size)
        answers: list[str] = []
        failures: list[BaseException] = []

        def recall_in_turn() -> None:
            try:
                for _ in range(rounds):
                    start.wait(timeout=30)
                    answers.append(memory.recall(T, QUESTION, budget=2000).text)
            except BaseException as exc:  # noqa: BLE001 - every failure is reported below
                failures.append(exc)
                start.abort()

        threads = [threading.Thread(target=recall_in_turn) for _ in range(size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not failures, failures
        assert answers == [expected] * (size * rounds)


def test_a_pool_timeout_is_busy(postgres: PostgresUrls) -> None:
    with _pooled(postgres, 1, 0.2) as memory:
        _seed(memory)
        with memory.backend.read(T) as reader:
            reader.consents(None)  # the pool's only connection is in use
            with pytest.raises(BusyError, match="pooled connection"):
                memory.get(T, "mira", "city")
        assert memory.get(T, "mira", "city").value == "Oslo"  # type: ignore[union-attr]


def test_a_pool_timeout_is_503_over_http(postgres: PostgresUrls) -> None:
    with _pooled(postgres, 2, 0.2) as memory, serve(memory) as running:
        _seed(memory)
        backend = memory.backend
        assert isinstance(backend, PostgresBackend)
        held = [backend._pool.getconn() for _ in range(2)]
        try:
            with running.client(T, "read") as client:
                refused = client.get("/v1/facts/mira/city")
        finally:
            for conn in held:
                backend._pool.putconn(conn)
        assert refused.status_code == 503, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert "busy" in refused.json()["type"]
        with running.client(T, "read") as client:
            assert client.get("/v1/facts/mira/city").json()["value"] == "Oslo"
