"""On PostgreSQL a checkpoint put, a task's pending writes and a resume's read are each one
pipeline of plain statements, the tenant set first (``SET LOCAL``) and no server function
setting it, run as the application role under forced row-level security."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from tests.citus import CITUS_URL
from tests.conftest import PostgresUrls
from tests.store.test_postgres_point_reads import statements, waits

from sgam import Memory
from sgam._core.errors import ConflictError
from sgam._core.retention import DEFAULT_CLASS
from sgam.langgraph import SgamSaver
from sgam.store import Attempt, CallContext


def _put(saver: SgamSaver, thread: str, step: int, parent: dict[str, Any] | None = None) -> dict[str, Any]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": f"step {step}"}
    config = parent or {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    return saver.put(config, checkpoint, {"source": "loop", "step": step}, {})  # type: ignore[arg-type,return-value]


def _rows(urls: PostgresUrls, table: str) -> list[tuple[Any, ...]]:
    """Rows as the owner sees them (row-level security does not bind it)."""
    with psycopg.connect(urls.admin) as conn:
        return conn.execute(f"SELECT tenant, thread_id FROM {table} ORDER BY tenant, thread_id").fetchall()


@contextmanager
def pipelines() -> Iterator[list[list[str]]]:
    """The statements sent in each pipeline opened meanwhile (``executemany`` counted once)."""
    opened: list[list[str]] = []
    pipeline, execute, executemany = psycopg.Connection.pipeline, psycopg.Cursor.execute, psycopg.Cursor.executemany

    @contextmanager
    def counted_pipeline(self: psycopg.Connection[Any]) -> Iterator[Any]:
        opened.append([])
        with pipeline(self) as inner:
            yield inner

    def counted(self: psycopg.Cursor[Any], query: Any, params: Any = None, **kwargs: Any) -> Any:
        if opened:
            opened[-1].append(str(query))
        return execute(self, query, params, **kwargs)

    def counted_many(self: psycopg.Cursor[Any], query: Any, params: Any, **kwargs: Any) -> Any:
        if opened:
            opened[-1].append(str(query))
        return executemany(self, query, params, **kwargs)

    psycopg.Connection.pipeline = counted_pipeline  # type: ignore[assignment,method-assign]
    psycopg.Cursor.execute = counted  # type: ignore[method-assign]
    psycopg.Cursor.executemany = counted_many  # type: ignore[method-assign]
    try:
        yield opened
    finally:
        psycopg.Connection.pipeline = pipeline  # type: ignore[method-assign]
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]
        psycopg.Cursor.executemany = executemany  # type: ignore[method-assign]


def inside(sent: list[str]) -> list[str]:
    """The statements of a pipeline inside its transaction: on Citus the dialect wraps each
    in ``BEGIN`` and ``COMMIT`` (its ``SET LOCAL`` reaches the workers only so); on
    PostgreSQL the pipeline's implicit transaction holds them as they are."""
    if CITUS_URL is None:
        return sent
    assert sent[0] == "BEGIN" and sent[-1] == "COMMIT", sent
    return sent[1:-1]


def _plain_and_scoped(sent: list[str]) -> bool:
    """The tenant set first, then plain statements: no server function call among them."""
    body = inside(sent)
    return body[0].startswith("SET LOCAL sgam.tenant") and not any("sgam_" in statement for statement in body)


def test_a_put_its_writes_and_a_resume_are_one_pipeline_each(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        saver = SgamSaver(memory, tenant="acme")
        first = _put(saver, "t-1", 0)
        with pipelines() as opened, waits() as rounds:
            second = _put(saver, "t-1", 1, first)
        assert len(opened) == 1 and _plain_and_scoped(opened[0]) and rounds == []  # committed by its Sync
        assert any("INSERT INTO saver_checkpoints" in statement for statement in opened[0])
        with pipelines() as opened, waits() as rounds:
            saver.put_writes(second, [("notes", "a"), ("more", "b"), ("__interrupt__", "x"), ("__interrupt__", "y")],
                             "task-1")  # type: ignore[arg-type]
        assert len(opened) == 1 and _plain_and_scoped(opened[0]) and rounds == []
        with pipelines() as opened, waits() as rounds:
            found = saver.get_tuple({"configurable": {"thread_id": "t-1", "checkpoint_ns": ""}})  # type: ignore[arg-type]
        assert len(opened) == 1 and _plain_and_scoped(opened[0]) and len(rounds) == 1
        assert found is not None and found.checkpoint["channel_values"] == {"notes": "step 1"}
        assert found.pending_writes == [("task-1", "__interrupt__", "y"), ("task-1", "notes", "a"),
                                        ("task-1", "more", "b")]
        saver.put_writes(second, [("notes", "later"), ("__interrupt__", "z")], "task-1")  # type: ignore[arg-type]
        found = saver.get_tuple(second)  # type: ignore[arg-type]
        assert found is not None  # the first regular write of a slot stays, a special one is replaced
        assert found.pending_writes == [("task-1", "__interrupt__", "z"), ("task-1", "notes", "a"),
                                        ("task-1", "more", "b")]
        saver.put_writes(second, [("__interrupt__", "last")], "task-1")  # type: ignore[arg-type]
        saver.put_writes(second, [("notes", "ignored")], "task-1")  # type: ignore[arg-type]
        saver.put_writes(second, [("notes", "own")], "task-2", "path-2")  # type: ignore[arg-type]
        found = saver.get_tuple(second)  # type: ignore[arg-type]
        assert found is not None and found.pending_writes == [
            ("task-1", "__interrupt__", "last"), ("task-1", "notes", "a"), ("task-1", "more", "b"),
            ("task-2", "notes", "own")]
        assert saver.get_tuple({"configurable": {"thread_id": "t-0"}}) is None  # type: ignore[arg-type]
        assert SgamSaver(memory, tenant="globex").get_tuple(second) is None  # type: ignore[arg-type]
    assert _rows(postgres, "saver_threads") == [("acme", "t-1")]


def test_a_put_and_its_writes_go_alone_unless_a_unit_of_work_must_carry_them(postgres: PostgresUrls) -> None:
    """Alone, a put or a task's writes is its one pipeline, committed by itself. A class
    the saver has not seen yet is looked up in a unit of work around the put (the next put
    goes alone); a write made for an idempotent attempt is a unit of work, in whose
    transaction the attempt's mark commits: here the attempt holds no key, so the unit of
    work refuses the write and nothing is stored."""
    with Memory(postgres.app) as memory:
        memory.retention("acme", "runs", "P30D")
        saver = SgamSaver(memory, tenant="acme", retention="runs")
        with pipelines() as opened:
            first = _put(saver, "t-1", 0)
        assert len(opened) == 1 and any("FROM retention_classes" in statement for statement in opened[0])  # looked up
        with pipelines() as opened:
            second = _put(saver, "t-1", 1, first)
            saver.put_writes(second, [("notes", "a")], "task-1")  # type: ignore[arg-type]
        assert len(opened) == 2 and all(_plain_and_scoped(sent) for sent in opened)
        assert "INSERT INTO saver_checkpoints" in inside(opened[0])[-1]
        assert "INSERT INTO saver_writes" in inside(opened[1])[-1]
        assert [(t.thread_id, t.retention, t.checkpoints) for t in saver.threads()] == [("t-1", "runs", 2)]

        acting = memory.bound(CallContext(attempt=Attempt("acme", "no-such-key", "attempt-1", 0)))
        acting_saver = SgamSaver(acting, tenant="acme", retention="runs")
        with pytest.raises(ConflictError):
            _put(acting_saver, "t-2", 0)
        with pytest.raises(ConflictError):
            acting_saver.put_writes(second, [("notes", "b")], "task-2")  # type: ignore[arg-type]
        found = saver.get_tuple(second)  # type: ignore[arg-type]
        assert found is not None and found.pending_writes == [("task-1", "notes", "a")]
    assert _rows(postgres, "saver_threads") == [("acme", "t-1")]


def test_a_unit_of_work_that_sent_its_tenant_first_still_puts(postgres: PostgresUrls) -> None:
    """A put after other statements in one unit of work goes after them, in the tenant the
    unit of work set once, first."""
    with Memory(postgres.app) as memory:
        saver = SgamSaver(memory, tenant="acme")
        _put(saver, "t-1", 0)
        with memory.ledger.backend.read("acme") as reader:
            checkpoint = reader.checkpoints().checkpoint("t-1", "", None)
        assert checkpoint is not None

        def after_a_read(txn: Any) -> None:
            records = txn.checkpoints()
            assert records.thread("t-1") is not None
            records.put_checkpoint(checkpoint._replace(thread_id="t-2"), DEFAULT_CLASS, ["mira"])

        with statements() as wrapped:
            memory.ledger.backend.run_write("acme", after_a_read)
        sent = inside(wrapped)
        assert "SET LOCAL sgam.tenant" in sent[0] and "INSERT INTO saver_checkpoints" in sent[-1]
        assert sum("SET LOCAL sgam.tenant" in statement for statement in sent) == 1
        assert [t.thread_id for t in saver.threads()] == ["t-1", "t-2"]
        assert saver.thread("t-2")[1] == ["mira"]
