"""The common one-fact write in one call (``sgam_write_one``): it must decide exactly as
the planner does, hand every other case back with nothing written, and keep the
database's guards (row-level security, the application role owning nothing, one current
version per start)."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from tests.conftest import ManualClock, PostgresUrls
from tests.store.test_postgres_point_reads import statements

from sgam import ConflictError, Memory, NotFoundError, SgamError, ValidationError
from sgam.store.postgres import PostgresBackend

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def _planner_only(backend: PostgresBackend, tenant: str) -> None:
    """``tenant``'s writes never take the one call: the planner's answers to compare with."""
    common_writer = backend.common_writer
    backend.common_writer = lambda asked: None if asked == tenant else common_writer(asked)  # type: ignore[method-assign]


def _record(memory: Memory, tenant: str, subject: str, attribute: str) -> list[tuple[Any, ...]]:
    """Every version of the key, without what differs by tenant (ids are ledger-wide)."""
    return [(a.value, a.valid_from, a.valid_to, a.recorded_at, a.superseded_at, a.source, a.origin, a.closed_by,
             a.supersedes is None) for a in memory.versions(tenant, subject, attribute)]


def _step(memory: Memory, tenant: str, op: tuple[Any, ...]) -> tuple[Any, ...]:
    kind, subject, attribute, value, day = op
    at = T0 + day * DAY
    try:
        if kind == "write":
            result = memory.write(tenant, subject, attribute, value, at, "e1")
        elif kind == "retract":
            result = memory.retract(tenant, subject, attribute, at, "e1")
        else:
            result = memory.correct(tenant, subject, attribute, at, value, "e1")
    except SgamError as exc:
        return (type(exc).__name__,)
    shown = result.assertion
    return (result.effect, None if shown is None else (shown.value, shown.valid_from, shown.valid_to,
                                                       shown.recorded_at))


def test_the_one_call_decides_as_the_planner(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    backend = PostgresBackend(postgres.app)
    rng = random.Random(28)
    keys = [("ann", "city"), ("ann", "mood"), ("bob", "city")]
    with Memory(backend=backend, clock=clock) as memory:
        _planner_only(backend, "plan")
        for tenant in ("fast", "plan"):
            memory.add_episode(tenant, "e1", T0, "everything")
            memory.write(tenant, "cid", "city", "Oslo", T0, "e1")  # a unit of work first reads the schema
        calls = 0
        for _ in range(240):
            subject, attribute = rng.choice(keys)
            kind = rng.choices(["write", "retract", "correct"], [8, 1, 1])[0]
            op = (kind, subject, attribute, rng.choice(["Oslo", "Rome", "Lima"]), rng.randrange(60))
            if rng.random() < 0.8:
                clock.advance(rng.choice([0, 1, 60]))
            with statements() as sent:
                fast = _step(memory, "fast", op)
            calls += any("sgam_write_one" in s for s in sent)
            assert fast == _step(memory, "plan", op), op
        for subject, attribute in keys:
            assert _record(memory, "fast", subject, attribute) == _record(memory, "plan", subject, attribute)
        assert calls > 100  # most writes went through the one call


def test_every_other_case_is_handed_back_with_nothing_written(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory, Memory(postgres.app, clock=clock) as other:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1")
        memory.write("acme", "bob", "city", "Oslo", T0, "e1")

        def handed_back(write: Any) -> list[str]:
            clock.advance()
            with statements() as sent:
                write()
            calls = [text for text in sent if not text.startswith("SET LOCAL sgam.tenant")]
            assert "sgam_write_one" in calls[0] and "sgam_write_lookups" in calls[1], sent
            return sent

        # a write at or before the key's last start: the planner's
        handed_back(lambda: memory.write("acme", "ann", "city", "Rome", T0 - DAY, "e1"))
        with pytest.raises(ConflictError):
            handed_back(lambda: memory.write("acme", "ann", "city", "Lima", T0, "e1"))
        # the subject has a consent statement
        memory.consent("acme", "bob", False, purpose="ads")
        handed_back(lambda: memory.write("acme", "bob", "city", "Rome", T0 + DAY, "e1"))
        # the subject is an alias, or has one
        memory.alias("acme", "annie", "ann")
        handed_back(lambda: memory.write("acme", "ann", "city", "Lima", T0 + 2 * DAY, "e1"))
        # the source has lost its text or is missing
        with pytest.raises(NotFoundError):
            handed_back(lambda: memory.write("acme", "ann", "city", "Lima", T0 + 3 * DAY, "e2"))
        # the schema changed elsewhere: the one call refuses the version it was validated at
        memory.write("acme", "cid", "age", "forty", T0, "e1")
        other.declare("acme", "age", "integer")
        with pytest.raises(ValidationError):
            handed_back(lambda: memory.write("acme", "cid", "age", "fifty", T0 + DAY, "e1"))
        assert memory.write("acme", "cid", "age", 50, T0 + DAY, "e1").assertion is not None
        assert [a.value for a in memory.history("acme", "ann", "city")] == ["Rome", "Oslo", "Lima"]
        assert [a.value for a in memory.history("acme", "bob", "city")] == ["Oslo", "Rome"]


def test_the_one_call_keeps_the_guards(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app, min_size=1, max_size=1)
    with Memory(backend=backend) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1")
        with statements() as sent:
            memory.write("acme", "ann", "city", "Rome", T0 + DAY, "e1")
        assert len(sent) == 1 and "sgam_write_one" in sent[0]
        with backend._pool.connection() as conn:
            row = conn.execute("SELECT current_setting('sgam.tenant', true)").fetchone()
            assert row is not None and row[0] in (None, "")  # the tenant ended with the call's transaction
            assert conn.execute("SELECT count(*) FROM assertions").fetchone() == (0,)
            owned = conn.execute("SELECT p.prosecdef, pg_get_userbyid(p.proowner) = current_user FROM pg_proc p "
                                 "WHERE p.proname = 'sgam_write_one'").fetchall()
            assert owned == [(False, False)]  # run as the caller, owned by another role
            with pytest.raises(psycopg.errors.InsufficientPrivilege):  # nor can the caller change it
                conn.execute("ALTER FUNCTION sgam_write_one(text, timestamptz, bigint, integer, text, text, "
                             "timestamptz, text, text, text, double precision, timestamptz, text) "
                             "SET search_path = public")
    with psycopg.connect(postgres.admin) as conn:
        rows = conn.execute("SELECT tenant, count(*) FILTER (WHERE recorded_to IS NULL) FROM assertions "
                            "WHERE subject = 'ann' GROUP BY tenant").fetchall()
    assert rows == [("acme", 2)]


def test_concurrent_one_calls_on_one_key_keep_one_holder_per_instant(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "v0", T0, "e1")
        failures: list[BaseException] = []

        def writer(worker: int) -> None:
            try:
                for n in range(12):
                    memory.write("acme", "ann", "city", f"w{worker}-{n}", T0 + (1 + worker * 12 + n) * DAY, "e1")
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        history = memory.history("acme", "ann", "city")
        assert len(history) == 73
        for before, after in zip(history, history[1:], strict=False):
            assert before.valid_to == after.valid_from  # each version ends where the next starts
