"""API keys over HTTP: a key that authenticated before costs its request no thread hop of
its own, yet its row is read on every request, so a key revoked by another process fails
on its very next request, whatever the route does (reads, writes, idempotent writes,
routes that make no store call, refusals), on both backends."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import sgam.server.auth as auth
from sgam import AsyncMemory, BusyError, Memory, access
from sgam.access import Principal, create_key, fingerprint, revoke_key
from sgam.server import create_app

from .conftest import Served, ServerThread, free_port, serve

FACT = {"subject": "mira", "attribute": "city", "value": "Oslo", "valid_from": "2026-01-01T00:00:00Z",
        "source": "e1"}


def key_id(key: str) -> str:
    found = fingerprint(key)
    assert found is not None
    return found[0]


def revoke_elsewhere(store_url: str, key: str) -> None:
    """``sgam keys revoke`` in a process of its own: nothing it does reaches the server's memory."""
    sgam = Path(sys.executable).with_name("sgam")
    done = subprocess.run([str(sgam), "keys", "revoke", key_id(key), "--db", store_url], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def served(store_url: str) -> Iterator[Served]:
    with Memory(store_url) as memory, serve(memory) as running:
        memory.add_episode("acme", "e1", "2026-01-01T00:00:00Z", "Mira moved to Oslo.")
        yield running


def test_a_key_revoked_by_another_process_fails_on_its_next_request(served: Served, store_url: str) -> None:
    with served.client("acme", "write") as writer, served.client("acme", "read") as reader:
        assert writer.post("/v1/facts", json=FACT).status_code == 201
        assert reader.get("/v1/facts/mira/city").json()["value"] == "Oslo"
        assert reader.get("/v1/whoami").status_code == 200
        revoke_elsewhere(store_url, served.keys[("acme", "write")])
        revoke_elsewhere(store_url, served.keys[("acme", "read")])
        later = {**FACT, "value": "Bergen", "valid_from": "2026-02-01T00:00:00Z"}
        answers = [
            writer.post("/v1/facts", json=later),
            writer.post("/v1/facts", json=later, headers={"Idempotency-Key": "k1"}),
            reader.get("/v1/facts/mira/city"),
            reader.get("/v1/facts/mira/city/history"),
            reader.post("/v1/recall", json={"question": "Where does Mira live?"}),
            reader.get("/v1/whoami"),  # no store call
            reader.post("/v1/facts", json=later),  # was a 403: the key's scope is too small
            writer.post("/v1/facts", json={"subject": "mira"}),  # was a 422: the body is incomplete
        ]
    for answer in answers:
        assert answer.status_code == 401, answer.text
        assert answer.json()["kind"] == "unauthenticated"
        assert answer.headers["www-authenticate"] == "Bearer"
        assert "Oslo" not in answer.text and "acme" not in answer.text
    found = served.memory.get("acme", "mira", "city", at="2026-03-01T00:00:00Z")
    assert found is not None and found.value == "Oslo"
    with Memory(store_url) as memory, memory.backend.read("acme") as reader_txn:
        assert reader_txn.idempotency("k1") is None


def test_a_revoked_key_stays_refused(served: Served) -> None:
    key = served.keys[("acme", "read")]
    with served.client("acme", "read") as reader:
        assert reader.get("/v1/whoami").status_code == 200
        revoke_key(served.memory, key_id(key))
        assert [reader.get("/v1/facts/mira/city").status_code for _ in range(3)] == [401, 401, 401]


def test_a_known_key_id_with_another_secret_is_refused(served: Served) -> None:
    key = served.keys[("acme", "admin")]
    with served.client("acme", "admin") as admin:
        assert admin.get("/v1/whoami").json()["scope"] == "admin"
    forged = key[: key.rindex(".") + 1] + "A" * 43
    with served.anonymous() as anyone:
        answer = anyone.get("/v1/whoami", headers={"Authorization": f"Bearer {forged}"})
    assert answer.status_code == 401 and answer.json()["kind"] == "unauthenticated"


def counting(target: Callable[..., Any], calls: list[str], name: str) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return target(*args, **kwargs)

    return counted


def test_a_known_key_is_read_on_every_request_in_the_hop_of_the_store_call(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One worker call per get once the key is known, its key checked in it (by the store
    call's first statement on PostgreSQL, a read of its own just before it on SQLite),
    where authenticating in a call of its own made two; the first request looks the key up
    (and the tenant's first lists its backfills)."""
    calls: list[str] = []
    monkeypatch.setattr(access, "authenticate", counting(access.authenticate, calls, "key read"))
    monkeypatch.setattr(auth, "authenticate", counting(auth.authenticate, calls, "key lookup"))
    monkeypatch.setattr(auth, "checked_call", counting(auth.checked_call, calls, "key check"))
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", "2026-01-01T00:00:00Z", "Mira moved to Oslo.")
        memory.write("acme", "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
        key = create_key(memory, "acme", "read").key
        async_memory = AsyncMemory(memory, workers=2)
        monkeypatch.setattr(async_memory, "_checked", counting(async_memory._checked, calls, "worker call"))
        port = free_port()
        with ServerThread(create_app(async_memory, public_url=f"http://127.0.0.1:{port}"), port):
            import httpx

            with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"},
                              timeout=30) as client:
                assert client.get("/v1/facts/mira/city").json()["value"] == "Oslo"
                first, calls[:] = list(calls), []
                for _ in range(3):
                    assert client.get("/v1/facts/mira/city").json()["value"] == "Oslo"
                known, calls[:] = list(calls), []
                assert client.get("/v1/whoami").json()["tenant"] == "acme"
                without_store_call = list(calls)
    by_store = memory.backend.checks_keys
    # the key looked up; the tenant's unfinished backfills listed, once per process, to resume them; the get
    assert first == ["worker call", "key lookup", "worker call", "worker call"]
    assert known == ["worker call", "key check", *([] if by_store else ["key read"])] * 3
    assert without_store_call == ["worker call", "key check", "key read"]


def test_known_keys_match_the_secret_and_hold_a_bounded_number() -> None:
    known = auth.KnownKeys(limit=2)
    keys = [f"sgam_YWNtZQ.id{n}.secret{n}" for n in range(3)]
    for n, key in enumerate(keys):
        known.remember(key, Principal("acme", f"YWNtZQ.id{n}", "read"))
    assert len(known) == 2 and known.principal(keys[0]) is None
    assert known.principal(keys[2]) == Principal("acme", "YWNtZQ.id2", "read")
    assert known.principal("sgam_YWNtZQ.id2.another") is None
    assert known.principal("not a key") is None
    known.forget(keys[2])
    assert known.principal(keys[2]) is None and len(known) == 1


def test_a_store_that_cannot_check_the_key_answers_busy(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key check that fails for want of the store is answered as every route answers a
    busy store (503), never with the answer of a key that was not checked."""
    with served.client("acme", "read") as reader:
        assert reader.get("/v1/whoami").status_code == 200

        def busy(memory: Memory, key: object, call: object, attempt: object = None) -> Principal:
            raise BusyError("the store is busy")

        monkeypatch.setattr(auth, "checked_call", busy)
        answers = [reader.get("/v1/whoami"), reader.get("/v1/facts/mira/city")]
        monkeypatch.undo()
        assert reader.get("/v1/whoami").json()["tenant"] == "acme"
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["kind"] == "busy" and "acme" not in answer.text
