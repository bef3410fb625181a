"""What the PostgreSQL backend does to save round trips must not change an answer: the
prefetched lookups of a one-fact write, the schema cache shared across transactions and
the implicit transaction of a read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tests.conftest import PostgresUrls

from sgam import Memory, ValidationError
from sgam._core.purpose import members_prefix
from sgam._core.schema import AttributeSchema, ValueType
from sgam._core.time import to_micros
from sgam.store import Declared, Members, OneFactWrite
from sgam.store._sql.ledger import KeyLookups
from sgam.store.postgres import PostgresBackend
from sgam.store.postgres.write import PostgresWrite

DAY = 86_400_000_000
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _versions_at(memory: Memory) -> None:
    memory.add_episode("acme", "e1", T0, "Ann's cities")
    for month, city in ((1, "Oslo"), (3, "Rome"), (5, "Lima")):
        memory.write("acme", "ann", "city", city, datetime(2026, month, 1, tzinfo=UTC), "e1")


@pytest.mark.parametrize("month", [1, 2, 3, 4, 5, 6])
def test_prefetched_lookups_answer_as_the_index_does(postgres: PostgresUrls, month: int) -> None:
    backend = PostgresBackend(postgres.app)
    with Memory(backend=backend) as memory:
        _versions_at(memory)
        moment = to_micros(datetime(2026, month, 1, tzinfo=UTC))

        def compare(txn: PostgresWrite) -> None:
            txn.prefetch_one(OneFactWrite("ann", "city", moment, "e1"))
            prefetched = txn.key("ann", "city")
            assert isinstance(prefetched, KeyLookups) and prefetched._near is not None
            plain = KeyLookups(txn._db, "acme", "ann", "city")
            for probe in (moment, moment + DAY):  # the named instant, and one it cannot answer
                for strict in (False, True):
                    assert prefetched.floor(probe, strict=strict) == plain.floor(probe, strict=strict)
                assert prefetched.ceiling(probe) == plain.ceiling(probe)

        backend.run_write("acme", compare)


def test_schema_cache_sees_a_declaration_made_elsewhere(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as writer, Memory(postgres.app) as declarer:
        writer.add_episode("acme", "e1", T0, "Ann's age")
        writer.write("acme", "ann", "age", "forty", T0, "e1")  # untyped: cached as undeclared
        declarer.declare("acme", "age", "integer")
        with pytest.raises(ValidationError):
            writer.write("acme", "ann", "age", "fifty", datetime(2026, 2, 1, tzinfo=UTC), "e1")
        assert writer.write("acme", "ann", "age", 50, datetime(2026, 2, 1, tzinfo=UTC), "e1").assertion is not None


def test_a_rolled_back_declaration_leaves_no_cached_schema(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app)
    with Memory(backend=backend) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's age")
        memory.write("acme", "ann", "age", "forty", T0, "e1")

        def declare_then_fail(txn: PostgresWrite) -> None:
            version = txn.bump_schema_version()
            txn.put_attribute_schema(AttributeSchema("age", ValueType.INTEGER, None, False, None, version))
            assert txn.attribute_schema("age") is not None
            raise RuntimeError("roll back")

        with pytest.raises(RuntimeError):
            backend.run_write("acme", declare_then_fail)
        memory.declare("acme", "age", "string")  # takes the version the rolled-back one had
        assert memory.write("acme", "ann", "age", "fifty", datetime(2026, 2, 1, tzinfo=UTC), "e1").assertion


def test_a_read_holds_its_tenant_for_every_statement_and_no_longer(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app, min_size=1, max_size=1)
    with Memory(backend=backend) as memory:
        _versions_at(memory)
        with backend.read("acme") as reader:
            assert reader.episode("e1") is not None
            found = reader.get("ann", "city", to_micros(datetime(2026, 4, 1, tzinfo=UTC)), None)
            assert found is not None and found.value == '"Rome"'
            assert len(reader.history("ann", "city", None)) == 3
        with backend._pool.connection() as conn:  # the same connection, handed back
            row = conn.execute("SELECT current_setting('sgam.tenant', true)").fetchone()
            assert row is not None and row[0] in (None, "")
            assert conn.execute("SELECT count(*) FROM assertions").fetchone() == (0,)


def test_a_read_sent_ahead_answers_as_asked_and_leaves_the_connection_clean(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app, min_size=1, max_size=1)
    with Memory(backend=backend) as memory:
        _versions_at(memory)
        assert memory.get("acme", "ann", "city").value == "Lima"  # type: ignore[union-attr]
        assert memory.get("acme", "ann", "city", at=datetime(2026, 4, 1, tzinfo=UTC)).value == "Rome"  # type: ignore[union-attr]
        assert memory.get("acme", "ann", "country") is None
        members = members_prefix("city", None)
        moment = to_micros(datetime(2026, 2, 1, tzinfo=UTC))
        with backend.read("acme") as reader:
            reader.prefetch([Members("ann", members, moment, None), Declared("nothing")])
            assert reader.history("ann", "city", None)[0].value == '"Oslo"'  # not what was sent ahead
            assert reader.members("ann", members, moment, None) == []
            assert reader.members("ann", members, moment, None) == []  # asked again: the server answers
            assert reader.declared("city") is None  # not the attribute sent ahead
        with backend._pool.connection() as conn:
            row = conn.execute("SELECT current_setting('sgam.tenant', true)").fetchone()
            assert row is not None and row[0] in (None, "")
            assert conn.execute("SELECT count(*) FROM assertions").fetchone() == (0,)


def test_a_fact_past_its_deadline_is_not_answered_from_a_read_sent_ahead(postgres: PostgresUrls) -> None:
    clock_now = [datetime(2026, 6, 1, tzinfo=UTC)]
    with Memory(postgres.app, clock=lambda: clock_now[0]) as memory:
        memory.add_episode("acme", "e1", T0, "Ann's city")
        memory.write("acme", "ann", "city", "Oslo", T0, "e1", expires_at=datetime(2026, 7, 1, tzinfo=UTC))
        assert memory.get("acme", "ann", "city") is not None
        clock_now[0] = datetime(2026, 7, 2, tzinfo=UTC)
        assert memory.get("acme", "ann", "city") is None


def test_a_unit_of_work_that_fails_on_either_side_commits_nothing(postgres: PostgresUrls) -> None:
    """A unit of work is the implicit transaction of one pipeline: raised in Python after
    its statements went (the connection closes before the Sync could commit them), or
    refused by the server midway, it is rolled back whole, and the pool (of one
    connection here) serves the next one."""
    from sgam import StoreError
    from sgam.store.contract import CheckpointRow

    backend = PostgresBackend(postgres.app, max_size=1)
    with Memory(backend=backend):
        def row(thread: str) -> CheckpointRow:
            return CheckpointRow(thread, "", "c1", None, None, "msgpack", b"\x80", "msgpack", b"\x80", 0)

        def then_raise(txn: PostgresWrite) -> None:
            txn.checkpoints().put_checkpoint(row("t-python"), "default", [])
            raise ValueError("after the statements")

        def then_refused(txn: PostgresWrite) -> None:
            txn.checkpoints().put_checkpoint(row("t-server"), "default", [])
            txn._db.run("SELECT 1 / 0")
            txn.checkpoints().put_checkpoint(row("t-after"), "default", [])

        with pytest.raises(ValueError):
            backend.run_write("acme", then_raise)
        with pytest.raises(StoreError):
            backend.run_write("acme", then_refused)
        backend.run_write("acme", lambda txn: txn.checkpoints().put_checkpoint(row("t-kept"), "default", []))
        with backend.read("acme") as reader:
            assert [t.thread_id for t in reader.checkpoints().threads(10)] == ["t-kept"]
        with backend.read_one("acme") as reader:
            found = reader.checkpoints().checkpoint_with_writes("t-kept", "", None)
            assert found is not None and found[0].checkpoint_id == "c1" and found[1] == []
        with backend.read_one("globex") as reader:
            assert reader.checkpoints().checkpoint_with_writes("t-kept", "", None) is None
