"""A PostgreSQL one-fact write is a unit of work of the planner that sends its lock,
lookups and deadline probe as one statement (``sgam_write_lookups``, migration 18) and its
operation with its version as another, in one pipeline: the answers, the locks and the
deadlines must be what they were."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest
from tests.conftest import ManualClock, PostgresUrls
from tests.store.test_postgres_point_reads import statements
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
        with statements() as sent:
            result = memory.write("acme", "ann", "city", "Rome", datetime(2026, 3, 1, tzinfo=UTC), "e1")
        assert result.assertion is not None and result.assertion.value == "Rome"
        assert len(sent) == 2 and "sgam_write_lookups" in sent[0] and "WITH operation AS" in sent[1], sent
        clock.advance()
        with statements() as sent:  # out of order: the same two statements
            memory.write("acme", "ann", "city", "Lima", datetime(2026, 2, 1, tzinfo=UTC), "e1")
        assert len(sent) == 2 and "sgam_write_lookups" in sent[0] and "WITH operation AS" in sent[1], sent
        clock.advance()
        with statements() as sent:
            memory.correct("acme", "ann", "city", datetime(2026, 3, 1, tzinfo=UTC), "Bergen", "e1")
        assert "sgam_write_lookups" in sent[0]
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
        assert "sgam_write_lookups" in sent[0]  # found due with the lookups
        assert any("DELETE FROM operations" in s for s in sent)
        assert _operations(postgres, "ann", "city") == 0  # the write settled it, before any read
        assert memory.get("acme", "ann", "home").value == "Rome"  # type: ignore[union-attr]
