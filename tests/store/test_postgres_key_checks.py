"""A call's API key checked by the call's first statement on PostgreSQL (``checked_call``,
the baseline): every way a call reaches the store sends the check before anything of it
commits or is answered, a key that is not live refuses the call with nothing changed,
and a live one costs the fact read and the common write no statement of their own."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from tests.conftest import PostgresUrls
from tests.store.test_postgres_checkpoint_calls import _put
from tests.store.test_postgres_point_reads import waits

from sgam import Memory, access
from sgam.access import AuthenticationError, checked_call, create_key, fingerprint, revoke_key
from sgam.langgraph import SgamSaver
from sgam.store.postgres import PostgresBackend

T0 = datetime(2026, 1, 1, tzinfo=UTC)

CALLS: dict[str, Callable[[Memory], Any]] = {
    "point read": lambda m: m.get("acme", "mira", "score"),
    "common write": lambda m: m.write("acme", "mira", "city", "Bergen", "2026-03-01T00:00:00Z", "e1"),
    "unit of work": lambda m: m.retract("acme", "mira", "city", "2026-03-01T00:00:00Z", "e1"),
    "pipelined read": lambda m: m.history("acme", "mira", "city"),
    "read of one statement": lambda m: m.search("acme", "Oslo"),
    "another tenant's write": lambda m: m.write("other", "ann", "city", "Rome", "2026-03-01T00:00:00Z", "o1"),
    "checkpoint put": lambda m: _put(SgamSaver(m, tenant="acme"), "t1", 1),
    "a path of its own": lambda m: m.backend.due_tenants(0),
    "no store call": lambda m: None,
}
"""Calls that reach the store each way it can be reached (and one that does not)."""


def key_id(key: str) -> str:
    found = fingerprint(key)
    assert found is not None
    return found[0]


def _seeded(postgres: PostgresUrls) -> tuple[Memory, str]:
    memory = Memory(backend=PostgresBackend(postgres.app))
    memory.add_episode("acme", "e1", T0, "Mira moved to Oslo.")
    memory.add_episode("other", "o1", T0, "Ann moved to Rome.")
    memory.write("acme", "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
    memory.write("acme", "mira", "score", 7, "2026-01-01T00:00:00Z", "e1")  # the schema cached: common writes
    return memory, create_key(memory, "acme", "write").key


def _state(memory: Memory) -> list[Any]:
    return [[(v.value, v.valid_from, v.valid_to) for v in memory.versions(tenant, subject, "city")]
            for tenant, subject in (("acme", "mira"), ("other", "ann"))] + [SgamSaver(memory, tenant="acme").threads()]


@pytest.mark.parametrize("name", list(CALLS))
def test_a_revoked_key_refuses_the_call_and_changes_nothing(postgres: PostgresUrls, name: str) -> None:
    memory, key = _seeded(postgres)
    with memory:
        before = _state(memory)
        with Memory(backend=PostgresBackend(postgres.app)) as elsewhere:
            revoke_key(elsewhere, key_id(key))
        with pytest.raises(AuthenticationError, match="revoked API key"):
            checked_call(memory, key, CALLS[name])
        assert _state(memory) == before


@pytest.mark.parametrize("name", list(CALLS))
def test_a_live_key_is_checked_by_the_store_unless_the_call_reaches_none(
    postgres: PostgresUrls, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, key = _seeded(postgres)
    reads: list[str] = []
    authenticate = access.authenticate
    monkeypatch.setattr(access, "authenticate", lambda *args: reads.append("key read") or authenticate(*args))
    with memory:
        checked_call(memory, key, CALLS[name])
        assert reads == (["key read"] if name == "no store call" else [])
        assert checked_call(memory, key, lambda m: m.get("acme", "mira", "score")) == memory.get(
            "acme", "mira", "score")


def test_a_forged_secret_is_refused_by_the_statement_that_checks_it(postgres: PostgresUrls) -> None:
    memory, key = _seeded(postgres)
    with memory:
        before = _state(memory)
        forged = key[: key.rindex(".") + 1] + "A" * 43
        with pytest.raises(AuthenticationError):
            checked_call(memory, forged, CALLS["common write"])
        assert _state(memory) == before


def test_the_fact_read_and_the_write_check_the_key_in_their_first_wait(postgres: PostgresUrls) -> None:
    memory, key = _seeded(postgres)
    with memory:
        for name in ("point read", "common write"):
            with waits() as rounds:
                checked_call(memory, key, CALLS[name])
            assert len(rounds) == 1 and any("sgam_api_key" in s for s in rounds[0]), (name, rounds)


def test_the_key_travels_with_the_view_it_is_bound_to_and_nowhere_else(postgres: PostgresUrls) -> None:
    """The call's context is a value handed to the call, not a state of its thread: inside
    a keyed call the memory it was not handed checks no key, the view it was handed is
    refused, and closing the view leaves the shared store open."""
    memory, key = _seeded(postgres)
    with memory:
        with Memory(backend=PostgresBackend(postgres.app)) as elsewhere:
            revoke_key(elsewhere, key_id(key))
        seen: list[Any] = []

        def call(bound: Memory) -> Any:
            seen.append(memory.get("acme", "mira", "score").value)  # type: ignore[union-attr]
            with bound:
                return bound.get("acme", "mira", "score")

        with pytest.raises(AuthenticationError, match="revoked API key"):
            checked_call(memory, key, call)
        assert seen == [7]
        assert memory.get("acme", "mira", "score").value == 7  # type: ignore[union-attr]
