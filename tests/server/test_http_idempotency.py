"""``Idempotency-Key`` acts exactly once: under simultaneous duplicates, and across a
server that stopped between acting and storing its response (on both backends)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from sgam import ConflictError, Memory
from sgam.server.idempotency import ABANDONED_AFTER, Replay, finish, request_digest, reserve
from sgam.store import Attempt, CallContext

from ..conftest import ManualClock
from .conftest import Served

T0 = "2026-01-01T00:00:00Z"
FACT = {"subject": "mira", "attribute": "city", "value": "Rome", "valid_from": T0, "source": "e1"}
STALE = ABANDONED_AFTER / 1_000_000 + 1


def operations(memory: Memory, subject: str, attribute: str = "city") -> int:
    """How many times the ledger acted on a key: its operations, corroborations included."""
    with memory.backend.read("acme") as reader:
        return len(reader.operations(subject, attribute))


def test_simultaneous_duplicates_act_once_per_key(served: Served) -> None:
    keys, duplicates = 20, 16
    with served.client() as http:
        assert http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"}).status_code == 201
    clients = [served.client() for _ in range(duplicates)]
    statuses: list[int] = []
    try:
        for key in range(keys):  # a key's duplicates leave together, each on its own connection
            start = threading.Barrier(duplicates)

            def send(http: httpx.Client, key: int = key, start: threading.Barrier = start) -> int:
                start.wait()
                fact = {**FACT, "subject": f"s{key}"}
                return http.post("/v1/facts", json=fact, headers={"Idempotency-Key": f"k{key}"}).status_code

            with ThreadPoolExecutor(duplicates) as pool:
                statuses += pool.map(send, clients)
    finally:
        for http in clients:
            http.close()
    assert set(statuses) <= {201, 409}, statuses
    assert [operations(served.memory, f"s{key}") for key in range(keys)] == [1] * keys


def test_simultaneous_reservations_of_one_key_yield_one_attempt(memory: Memory) -> None:
    """The reservation itself, without a worker pool in between: one winner per key."""
    contenders = 12
    for key in range(10):
        start = threading.Barrier(contenders)

        def contend(_: int, key: int = key, start: threading.Barrier = start) -> Replay | Attempt | str:
            start.wait()
            try:
                return reserve(memory, "acme", f"r{key}", "same-digest")
            except ConflictError as exc:
                return exc.kind

        with ThreadPoolExecutor(contenders) as pool:
            outcomes = list(pool.map(contend, range(contenders)))
        assert sum(isinstance(o, Attempt) for o in outcomes) == 1, outcomes
        assert all(isinstance(o, Attempt) or o == "conflict" for o in outcomes), outcomes


def _post(http: httpx.Client, body: bytes, key: str) -> httpx.Response:
    return http.post("/v1/facts", content=body, headers={"Idempotency-Key": key, "Content-Type": "application/json"})


def _reserve(memory: Memory, body: bytes, key: str) -> Attempt:
    attempt = reserve(memory, "acme", key, request_digest("POST", "/v1/facts", "", body))
    assert isinstance(attempt, Attempt)
    return attempt


def _write_as(memory: Memory, attempt: Attempt) -> None:
    """What the route does for ``attempt``: the fact, written on its behalf."""
    memory.bound(CallContext(attempt=attempt)).write("acme", "mira", "city", "Rome", T0, "e1")


def test_a_crash_after_acting_is_answered_from_the_record_never_acted_again(
    served_at: Served, clock: ManualClock,
) -> None:
    body = json.dumps(FACT).encode()
    with served_at.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        _write_as(served_at.memory, _reserve(served_at.memory, body, "crash-1"))  # then the server died
        assert operations(served_at.memory, "mira") == 1

        in_flight = _post(http, body, "crash-1")
        assert in_flight.status_code == 409 and in_flight.json()["kind"] == "conflict"
        clock.advance(STALE)
        for _ in range(2):  # after the stale window, and every time after
            lost = _post(http, body, "crash-1")
            assert lost.status_code == 409, lost.text
            assert lost.json()["kind"] == "response_lost" and "took effect" in lost.json()["detail"]
        assert operations(served_at.memory, "mira") == 1


def test_a_crash_before_acting_lets_one_retry_act(served_at: Served, clock: ManualClock) -> None:
    body = json.dumps(FACT).encode()
    with served_at.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        first = _reserve(served_at.memory, body, "crash-2")  # reserved; the server died before writing
        clock.advance(STALE)
        retried = _post(http, body, "crash-2")
        assert retried.status_code == 201, retried.text
        with pytest.raises(ConflictError, match="another attempt"):  # the first attempt, still alive, cannot act
            _write_as(served_at.memory, first)
        replayed = _post(http, body, "crash-2")
        assert replayed.json() == retried.json() and replayed.headers["idempotent-replayed"] == "true"
    assert operations(served_at.memory, "mira") == 1


def test_a_server_error_after_a_write_is_the_stored_answer(served_at: Served) -> None:
    """Releasing the key would let a retry act twice: only a 5xx before any write does."""
    body = json.dumps(FACT).encode()
    with served_at.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
    attempt = _reserve(served_at.memory, body, "fail-1")
    _write_as(served_at.memory, attempt)
    finish(served_at.memory, attempt, 503, '{"kind": "busy"}')
    replay = reserve(served_at.memory, "acme", "fail-1", request_digest("POST", "/v1/facts", "", body))
    assert replay == Replay(503, '{"kind": "busy"}')

    unused = _reserve(served_at.memory, body, "fail-2")
    finish(served_at.memory, unused, 503, '{"kind": "busy"}')
    assert isinstance(_reserve(served_at.memory, body, "fail-2"), Attempt)  # released: nothing was written


# erasure and consent reach stored responses ---------------------------------------------

EMAIL = "mira.secret@example.org"


def _stored(http: httpx.Client, path: str, body: dict[str, object], key: str) -> httpx.Response:
    response = http.post(path, json=body, headers={"Idempotency-Key": key})
    assert response.status_code < 300, response.text
    return response


def _erased(response: httpx.Response, *quoted: str) -> None:
    assert response.status_code == 410, response.text
    assert response.json()["kind"] == "response_erased"
    assert all(text not in response.text for text in quoted)


def test_erasing_a_subject_empties_the_stored_responses_that_quote_it(served: Served) -> None:
    fact = {**FACT, "attribute": "email", "value": EMAIL}
    with served.client() as http:
        _stored(http, "/v1/episodes", {"id": "e1", "at": T0, "text": "a note"}, "ep")
        _stored(http, "/v1/facts", fact, "fact")
        refused = http.post("/v1/facts", json={**fact, "value": "other"}, headers={"Idempotency-Key": "refused"})
        assert refused.status_code == 409 and EMAIL in refused.text  # a refusal quoting the stored value
        bob = _stored(http, "/v1/facts", {**FACT, "subject": "bob"}, "bob")
        assert http.delete("/v1/subjects/mira").status_code == 200

        _erased(http.post("/v1/facts", json=fact, headers={"Idempotency-Key": "fact"}), EMAIL)
        _erased(http.post("/v1/facts", json={**fact, "value": "other"}, headers={"Idempotency-Key": "refused"}),
                EMAIL)
        assert operations(served.memory, "mira", "email") == 0  # the retry did not record it again
        again = http.post("/v1/facts", json={**FACT, "subject": "bob"}, headers={"Idempotency-Key": "bob"})
        assert again.json() == bob.json() and again.headers["idempotent-replayed"] == "true"  # others stay
        residue = http.post("/v1/residue", json={"text": EMAIL}).json()
        assert residue["found"] is False, residue


def test_erasing_an_episode_empties_the_stored_responses_that_quote_it(served: Served) -> None:
    secret = "the locker code is 4711-9023"
    with served.client() as http:
        _stored(http, "/v1/episodes", {"id": "e-secret", "at": T0, "text": secret}, "secret")
        _stored(http, "/v1/facts", {**FACT, "attribute": "locker", "value": "4711-9023", "source": "e-secret",
                                    "subject": "zed"}, "locker")
        kept = _stored(http, "/v1/episodes", {"id": "e-other", "at": T0, "text": "lunch was nice"}, "other")
        assert http.delete("/v1/episodes/e-secret").status_code == 200

        _erased(http.post("/v1/episodes", json={"id": "e-secret", "at": T0, "text": secret},
                          headers={"Idempotency-Key": "secret"}), secret)
        _erased(http.post("/v1/facts", json={**FACT, "attribute": "locker", "value": "4711-9023",
                                             "source": "e-secret", "subject": "zed"},
                          headers={"Idempotency-Key": "locker"}), "4711-9023")
        assert http.get("/v1/episodes/e-secret").status_code == 404  # not recorded again
        again = http.post("/v1/episodes", json={"id": "e-other", "at": T0, "text": "lunch was nice"},
                          headers={"Idempotency-Key": "other"})
        assert again.json() == kept.json()
        for text in (secret, "4711-9023"):
            residue = http.post("/v1/residue", json={"text": text}).json()
            assert residue["found"] is False, residue


def test_an_erasure_during_a_request_empties_the_response_it_stores(served: Served) -> None:
    body = json.dumps({**FACT, "attribute": "email", "value": EMAIL}).encode()
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        attempt = _reserve(served.memory, body, "racing")
        result = served.memory.bound(CallContext(attempt=attempt)).write("acme", "mira", "email", EMAIL, T0, "e1")
        served.memory.forget_subject("acme", "mira")  # before the response is stored
        finish(served.memory, attempt, 201, json.dumps({"value": result.assertion.value}))
        _erased(_post(http, body, "racing"), EMAIL)


def test_a_replay_after_revocation_is_refused_as_the_route_would_now(served: Served) -> None:
    fact = {**FACT, "attribute": "email", "value": EMAIL}
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        first = _stored(http, "/v1/facts", fact, "fact")
        for purpose in ("slides", None):
            consent: dict[str, object] = {"granted": False} if purpose is None else {"granted": False,
                                                                                    "purpose": purpose}
            assert http.put("/v1/consent/mira", json=consent).status_code == 200
            denied = http.post("/v1/facts", json=fact, headers={"Idempotency-Key": "fact"})
            assert denied.status_code == 403 and denied.json()["kind"] == "denied", denied.text
            assert EMAIL not in denied.text
            assert http.put("/v1/consent/mira", json={**consent, "granted": True}).status_code == 200
            again = http.post("/v1/facts", json=fact, headers={"Idempotency-Key": "fact"})
            assert again.json() == first.json()  # granted again: the replay answers again, acting never
        assert operations(served.memory, "mira", "email") == 1


# the request's identity, and the OpenAPI document --------------------------------------

def test_the_same_json_spelled_differently_is_the_same_request(served: Served) -> None:
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        first = _post(http, json.dumps(FACT).encode(), "spelled")
        respelled = json.dumps(dict(reversed(list(FACT.items()))), indent=2).encode()
        again = _post(http, respelled, "spelled")
        assert first.status_code == again.status_code == 201, again.text
        assert again.headers["idempotent-replayed"] == "true" and again.json() == first.json()
        other = _post(http, json.dumps({**FACT, "value": "Oslo"}).encode(), "spelled")
        assert other.status_code == 422 and other.json()["field"] == "Idempotency-Key"
    assert operations(served.memory, "mira") == 1


READ_POSTS = {"/v1/search", "/v1/recall", "/v1/residue", "/v1/documents/search", "/v1/subjects/{subject}/export"}
"""POST routes that only read: a retry is harmless, so they take no Idempotency-Key (and a
subject's export, everything held about a person, is never kept as a stored response)."""


def test_every_post_route_that_takes_the_key_declares_it(served: Served) -> None:
    with served.anonymous() as http:
        paths = http.get("/openapi.json").json()["paths"]
    declaring = {path for path, operations in paths.items() if "post" in operations
                 and any(p["in"] == "header" and p["name"] == "Idempotency-Key"
                         for p in operations["post"].get("parameters", []))}
    posts = {path for path, operations in paths.items() if "post" in operations}
    assert declaring == posts - READ_POSTS
    assert {"/v1/facts", "/v1/episodes", "/v1/remember", "/v1/documents/create", "/v1/purge"} <= declaring


def test_an_expiry_settled_by_the_request_itself_keeps_its_response(served_at: Served, clock: ManualClock) -> None:
    """The request's own write settles what fell due first, then reads what is left: its
    response cannot quote the expired data, so it is stored and replayed whole."""
    memory = served_at.memory
    memory.retention("acme", "brief", "PT1M")
    memory.add_episode("acme", "e1", T0, "x")
    memory.add_episode("acme", "gone", T0, "short-lived", retention="brief")
    clock.advance(120)
    with served_at.client() as http:
        first = _stored(http, "/v1/facts", {**FACT, "subject": "zed"}, "settles")
        assert memory.episode("acme", "gone") is None  # expired by that write
        again = http.post("/v1/facts", json={**FACT, "subject": "zed"}, headers={"Idempotency-Key": "settles"})
        assert again.status_code == 201 and again.json() == first.json(), again.text
