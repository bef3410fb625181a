"""A PostgreSQL one-fact write is a unit of work of the planner in one pipeline: its lock,
lookups and deadline probe (plain statements, ``lookups.py``) come back in one round trip,
and its operation with its version go as one statement with the commit: the answers, the
locks and the deadlines must be what they were."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest
from tests.conftest import ManualClock, PostgresUrls
from tests.store.test_postgres_point_reads import statements, waits
from tests.store.test_postgres_search import owned  # noqa: F401 - fixture

from sgam import DeniedError, Memory

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _operations(urls: PostgresUrls, subject: str, attribute: str = "city") -> int:
    """Operations of a key, counted by the owner (row-level security does not bind it)."""
    with psycopg.connect(urls.admin) as conn:
        row = conn.execute("SELECT count(*) FROM operations WHERE tenant = 'acme' AND subject = %s "
                           "AND attribute = %s", (subject, attribute)).fetchone()
    assert row is not None
    return int(row[0])


def test_a_one_fact_write_is_two_statements_and_writes_as_before(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's cities")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1")
        clock.advance()
        with waits() as rounds:
            result = memory.write("acme", "ann", "city", "Rome", datetime(2026, 3, 1, tzinfo=UTC), "e1")
        assert result.assertion is not None and result.assertion.value == "Rome"
        assert len(rounds) == 1 and "sgam_lifecycle_due" in " ".join(rounds[0]), rounds
        assert not any("sgam_write" in s for s in rounds[0])  # plain statements: no server function decides
        clock.advance()
        with waits() as rounds:  # out of order: the same one wait
            memory.write("acme", "ann", "city", "Lima", datetime(2026, 2, 1, tzinfo=UTC), "e1")
        assert len(rounds) == 1, rounds
        clock.advance()
        with statements() as sent:
            memory.correct("acme", "ann", "city", datetime(2026, 3, 1, tzinfo=UTC), "Bergen", "e1")
        assert "WITH operation AS" in sent[-1] or any("INSERT INTO operations" in s for s in sent), sent
        assert [a.value for a in memory.history("acme", "ann", "city")] == ["Oslo", "Lima", "Bergen"]
        assert _operations(postgres, "ann") == 4
        memory.consent("acme", "bob", False)
        with pytest.raises(DeniedError):
            memory.write("acme", "bob", "city", "Oslo", T0, "e1")
        assert _operations(postgres, "bob") == 0


def test_a_write_settles_due_deadlines_it_finds_with_its_lookups(postgres: PostgresUrls) -> None:
    clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
    with Memory(postgres.app, clock=clock) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1", expires_at=datetime(2026, 6, 2, tzinfo=UTC))
        memory.write("acme", "ann", "home", "Oslo", T0, "e1")  # its schema is at hand from now on
        clock.set(datetime(2026, 6, 3, tzinfo=UTC))
        with statements() as sent:
            memory.write("acme", "ann", "home", "Rome", datetime(2026, 2, 1, tzinfo=UTC), "e1")
        assert "sgam_lifecycle_due" in " ".join(sent[:8])  # found due with the lookups
        assert any("DELETE FROM operations" in s for s in sent)
        assert _operations(postgres, "ann", "city") == 0  # the write settled it, before any read
        assert memory.get("acme", "ann", "home").value == "Rome"  # type: ignore[union-attr]
