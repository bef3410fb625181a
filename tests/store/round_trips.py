"""Counting what a call costs PostgreSQL in round trips: pool checkouts, statements, and
waits for the server (a statement outside a pipeline, a pipeline's flush or Sync)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from psycopg import _pipeline

from sgam import Memory


@contextmanager
def counted(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """``connections``, ``statements`` and ``waits`` of ``memory``'s PostgreSQL backend
    inside the block."""
    seen: Counter[str] = Counter()
    pool = memory.backend._pool  # type: ignore[attr-defined]
    getconn, execute, fetch, sync = (pool.getconn, psycopg.Cursor.execute, _pipeline.Pipeline._fetch_gen,
                                     _pipeline.Pipeline.sync)

    def counted_getconn(*args: Any, **kwargs: Any) -> Any:
        seen["connections"] += 1
        return getconn(*args, **kwargs)

    def counted_execute(self: psycopg.Cursor[Any], *args: Any, **kwargs: Any) -> Any:
        seen["statements"] += 1
        if self.connection._pipeline is None:  # outside a pipeline each statement waits for its answer
            seen["waits"] += 1
        return execute(self, *args, **kwargs)

    def counted_fetch(self: Any, *, flush: bool) -> Any:
        seen["waits"] += flush
        return fetch(self, flush=flush)

    def counted_sync(self: Any) -> Any:
        seen["waits"] += 1
        return sync(self)

    with monkeypatch.context() as patch:
        patch.setattr(pool, "getconn", counted_getconn)
        patch.setattr(psycopg.Cursor, "execute", counted_execute)
        patch.setattr(_pipeline.Pipeline, "_fetch_gen", counted_fetch)
        patch.setattr(_pipeline.Pipeline, "sync", counted_sync)
        yield seen
