"""A write the planner refuses inside a PostgreSQL unit of work rolls back on the
connection it ran on and hands that connection back to the pool: refusals cost neither
a new server session each nor a warning, and leave nothing stored."""

from __future__ import annotations

import logging

import psycopg
import pytest
from tests.conftest import PostgresUrls

from sgam import Memory, ValidationError
from sgam.store.postgres import PostgresBackend

T = "acme"
REFUSALS = 100


def _sessions(postgres: PostgresUrls) -> set[int]:
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE usename = 'sgam_test_app'").fetchall()
    return {int(row[0]) for row in rows}


def test_refused_writes_keep_their_pooled_connection(
    postgres: PostgresUrls, caplog: pytest.LogCaptureFixture,
) -> None:
    backend = PostgresBackend(postgres.app, min_size=1, max_size=1)
    with Memory(backend=backend) as memory:
        memory.declare(T, "age", "integer")
        memory.add_episode(T, "e1", "2026-06-01T09:00:00Z", "Mira is forty.")
        memory.write(T, "mira", "age", 40, "2026-06-01T09:00:00Z", "e1")
        before = _sessions(postgres)
        assert len(before) == 1
        with caplog.at_level(logging.WARNING):
            for _ in range(REFUSALS):
                with pytest.raises(ValidationError) as refused:
                    memory.write(T, "mira", "age", "forty", "2026-06-02T09:00:00Z", "e1")
                assert refused.value.field == "value"
            with pytest.raises(ValidationError) as refused:  # the first fact's statements were already sent
                memory.write_many(T, [
                    {"subject": "ola", "attribute": "age", "value": 30, "valid_from": "2026-06-01T09:00:00Z",
                     "source": "e1"},
                    {"subject": "mira", "attribute": "age", "value": "forty", "valid_from": "2026-06-02T09:00:00Z",
                     "source": "e1"}])
            assert refused.value.field == "facts[1].value"
        assert _sessions(postgres) == before
        assert memory.get(T, "ola", "age") is None
        assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []
        assert [v.value for v in memory.history(T, "mira", "age")] == [40]
        memory.write(T, "mira", "age", 41, "2026-06-03T09:00:00Z", "e1")
        assert memory.get(T, "mira", "age").value == 41  # type: ignore[union-attr]
        assert _sessions(postgres) == before
