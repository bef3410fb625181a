"""A PostgreSQL point read is one statement (``sgam_point_reads``, migration 17): it must
answer as the read it replaces, find the deadlines the probe finds, keep row-level
security as it was, and leave the pooled connection without a tenant."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from tests.conftest import ManualClock, PostgresUrls
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import Memory
from sgam.langgraph import SgamStore
from sgam.store import PointRead
from sgam.store._sql import lifecycle
from sgam.store.postgres import PostgresBackend
from sgam.store.postgres.backend import PostgresReader

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)


RELATION_CHECK = ("BEGIN ISOLATION LEVEL REPEATABLE READ", "SET LOCAL sgam.tenant",
                  "FROM attribute_schemas WHERE tenant", "COMMIT")
"""A string value may name a subject (a relation): the read then asks the attribute's
declared type, in a pipeline of its own (a read's snapshot: BEGIN and COMMIT travel with
its statements). Not folded into ``sgam_point_reads`` yet."""


def point_reads(sent: list[str]) -> list[str]:
    """``sent`` without the statements of the relation check."""
    return [s for s in sent if not any(part in s for part in RELATION_CHECK)]


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every statement the driver is asked to run meanwhile, in order."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self: psycopg.Cursor[Any], query: Any, params: Any = None, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(self, query, params, **kwargs)

    psycopg.Cursor.execute = counted  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]


@contextmanager
def one_statement_at_a_time() -> Iterator[None]:
    """Reads without the point function: the tenant, the probe, then each statement."""
    plan_point = PostgresReader.plan_point
    PostgresReader.plan_point = lambda self, request: None  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        PostgresReader.plan_point = plan_point  # type: ignore[method-assign]


def _timeline(memory: Memory) -> None:
    memory.add_episode("acme", "e1", T0, "Ann's cities and styles")
    for month, city in ((1, "Oslo"), (3, "Rome"), (5, "Lima")):
        memory.write("acme", "ann", "city", city, datetime(2026, month, 1, tzinfo=UTC), "e1")
    memory.write("acme", "ann", "style", "long", T0, "e1")
    memory.write("acme", "ann", "style", "short", datetime(2026, 2, 1, tzinfo=UTC), "e1", purpose="slides")


def test_a_point_read_is_one_statement_and_answers_as_before(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory:
        _timeline(memory)
        known = clock()
        clock.advance(3600)
        memory.write("acme", "ann", "city", "Quito", datetime(2026, 4, 1, tzinfo=UTC), "e1")
        memory.consent("acme", "bob", False, purpose="slides")
        memory.write("acme", "bob", "style", "terse", T0, "e1")
        asks: list[Callable[[], object]] = []
        for subject in ("ann", "bob", "cid"):
            for attribute in ("city", "style", "none"):
                for at in (None, datetime(2025, 6, 1, tzinfo=UTC), datetime(2026, 2, 15, tzinfo=UTC),
                           datetime(2026, 4, 15, tzinfo=UTC)):
                    for known_at in (None, known):
                        for purpose in (None, "slides", "report"):
                            asks.append(lambda s=subject, a=attribute, at=at, k=known_at, p=purpose: memory.get(
                                "acme", s, a, at=at, known_at=k, purpose=p))
        with statements() as sent:
            answers = [ask() for ask in asks]
        assert len(point_reads(sent)) == len(asks)
        assert all("sgam_point_reads" in statement for statement in point_reads(sent))
        with one_statement_at_a_time():
            assert [ask() for ask in asks] == answers
        found = {(a.subject, a.attribute, a.value) for a in answers if a is not None}
        assert ("ann", "city", "Quito") in found and ("ann", "city", "Rome") in found
        assert ("ann", "style", "short") in found and ("ann", "style", "long") in found
        assert ("bob", "style", "terse") in found
        assert memory.get("acme", "bob", "style", purpose="slides") is None  # revoked for that purpose
        assert memory.get("acme", "ann", "city", at=datetime(2026, 4, 15, tzinfo=UTC),
                          known_at=known).value == "Rome"  # type: ignore[union-attr]


def test_a_point_read_settles_what_is_due_then_reads(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1")
        memory.write("acme", "ann", "city", "Rome", datetime(2026, 3, 1, tzinfo=UTC), "e1",
                     expires_at=datetime(2026, 7, 1, tzinfo=UTC))
        assert memory.get("acme", "ann", "city").value == "Rome"  # type: ignore[union-attr]
        clock.set(datetime(2026, 7, 2, tzinfo=UTC))
        with statements() as sent:
            assert memory.get("acme", "ann", "city").value == "Oslo"  # type: ignore[union-attr]
        assert "sgam_point_reads" in sent[0]  # found it due, then the expiry ran in a write
        assert any("DELETE FROM operations" in statement for statement in sent)
        with statements() as sent:
            assert memory.get("acme", "ann", "city").value == "Oslo"  # type: ignore[union-attr]
        assert len(point_reads(sent)) == 1


def test_a_point_read_leaves_the_connection_without_a_tenant(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app, min_size=1, max_size=1)
    with Memory(backend=backend) as memory:
        _timeline(memory)
        assert memory.get("acme", "ann", "city").value == "Lima"  # type: ignore[union-attr]
        with backend._pool.connection() as conn:
            row = conn.execute("SELECT current_setting('sgam.tenant', true)").fetchone()
            assert row is not None and row[0] in (None, "")
            assert conn.execute("SELECT count(*) FROM assertions").fetchone() == (0,)
            owned = conn.execute(
                "SELECT p.proname, p.prosecdef, pg_get_userbyid(p.proowner) = current_user FROM pg_proc p "
                "WHERE p.proname IN ('sgam_point_reads', 'sgam_lifecycle_due') ORDER BY 1").fetchall()
            assert owned == [("sgam_lifecycle_due", False, False), ("sgam_point_reads", False, False)]
            # the application role still reads only the tenant it names, and only as itself
            conn.execute("SELECT set_config('sgam.tenant', 'globex', false)")
            try:
                assert conn.execute("SELECT count(*) FROM assertions").fetchone() == (0,)
            finally:
                conn.execute("RESET sgam.tenant")


def _due_answers(backend: PostgresBackend, tenant: str, now: int) -> tuple[bool, bool, bool]:
    """The portable probe's answer, the server function's in a read, and in a point read."""
    with backend.read(tenant) as reader:
        portable = lifecycle.LifecycleReads.lifecycle_due(reader, now)
        function = reader.lifecycle_due(now)
    with backend.read(tenant) as reader:
        reader.plan_point(PointRead("ann", "city", now, None, ("city",)))
        point = reader.lifecycle_due(now)
    return portable, function, point


def test_the_server_probe_finds_every_deadline_the_portable_probe_finds(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory:
        memory.add_episode("ops", "e1", T0, "a fact that expires")
        memory.write("ops", "ann", "city", "Oslo", T0, "e1", expires_at=datetime(2026, 6, 10, tzinfo=UTC))
        SgamStore(memory, tenant="items").put(("prefs",), "k", {"v": 1}, ttl=60 * 24 * 5)
        for tenant, on_expiry in (("erase", "erase"), ("keep", "keep_facts")):
            memory.retention(tenant, "short", "P3D", on_expiry=on_expiry)
            memory.add_episode(tenant, "e1", T0, "kept three days", retention="short")
        memory.retention("docs", "short", "P4D")
        memory.documents.create("docs", "/memories/notes.md", "kept four days\n", retention="short")
        memory.add_episode("none", "e1", T0, "nothing expires here")
        backend = memory.backend
        assert isinstance(backend, PostgresBackend)
        start = int(clock().timestamp() * 1_000_000)
        for tenant in ("ops", "items", "erase", "keep", "docs", "none"):
            seen = []
            for days in (0, 2, 3, 4, 5, 9, 10, 30):
                now = start + days * 86_400_000_000
                answers = _due_answers(backend, tenant, now)
                assert len(set(answers)) == 1, (tenant, days, answers)
                seen.append(answers[0])
            assert seen == sorted(seen), (tenant, seen)  # once due, due later too
            assert seen[-1] is (tenant != "none") and seen[0] is False, (tenant, seen)
