"""Bad requests get the right status and a problem document, write nothing and leak no
traceback; a retried POST with an Idempotency-Key acts once."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from .conftest import MAX_BODY, Served

T0 = "2026-01-01T00:00:00Z"
FACT = {"subject": "mira", "attribute": "city", "value": "Rome", "valid_from": T0, "source": "e1"}


def problem(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    document: dict[str, Any] = response.json()
    assert document["status"] == status and document["kind"] == kind
    assert "Traceback" not in response.text and 'File "' not in response.text
    return document


def nothing_written(http: httpx.Client) -> None:
    assert http.get("/v1/episodes").json() == []
    assert http.get("/v1/facts", params={"all_times": "true"}).json()["items"] == []


RAW_BODIES = {
    "not json": (b'{"id": "e1", "at": ', 400, "malformed"),
    "not utf-8": (b'{"id": "\xff\xfe", "at": "2026-01-01T00:00:00Z", "text": "x"}', 400, "malformed"),
    "json array": (b"[1, 2]", 422, "validation"),
    "json null": (b"null", 422, "validation"),
    "lone surrogate": (b'{"id": "e1", "at": "2026-01-01T00:00:00Z", "text": "\\ud800"}', 422, "validation"),
    "nul in text": (b'{"id": "e1", "at": "2026-01-01T00:00:00Z", "text": "a\\u0000b"}', 422, "validation"),
    "nul in id": (b'{"id": "e\\u00001", "at": "2026-01-01T00:00:00Z", "text": "x"}', 422, "validation"),
}


@pytest.mark.parametrize("name", sorted(RAW_BODIES))
def test_unusable_bodies(served: Served, name: str) -> None:
    body, status, kind = RAW_BODIES[name]
    with served.client() as http:
        problem(http.post("/v1/episodes", content=body, headers={"content-type": "application/json"}), status, kind)
        nothing_written(http)


JSON_BODIES: dict[str, tuple[str, dict[str, Any], str]] = {
    "unknown field": ("/v1/facts", {**FACT, "colour": "red"}, "colour"),
    "missing field": ("/v1/facts", {k: v for k, v in FACT.items() if k != "source"}, "source"),
    "number as subject": ("/v1/facts", {**FACT, "subject": 7}, "subject"),
    "string as confidence": ("/v1/facts", {**FACT, "confidence": "high"}, "confidence"),
    "bool as budget": ("/v1/recall", {"question": "x", "budget": True}, "budget"),
    "naive timestamp": ("/v1/facts", {**FACT, "valid_from": "2026-01-01T00:00:00"}, "valid_from"),
    "not a timestamp": ("/v1/episodes", {"id": "e1", "at": "yesterday", "text": "x"}, "at"),
    "empty subject": ("/v1/facts", {**FACT, "subject": " "}, "subject"),
    "nan confidence": ("/v1/facts", {**FACT, "confidence": 2.5}, "confidence"),
    "metadata not object": ("/v1/episodes", {"id": "e1", "at": T0, "text": "x", "metadata": [1]}, "metadata"),
    "limit too large": ("/v1/search", {"question": "x", "limit": 10**9}, "limit"),
}


@pytest.mark.parametrize("name", sorted(JSON_BODIES))
def test_wrong_shapes_and_values_name_the_field(served: Served, name: str) -> None:
    path, body, field = JSON_BODIES[name]
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        document = problem(http.post(path, json=body), 422, "validation")
        assert document["field"] == field
        assert http.get("/v1/facts", params={"all_times": "true"}).json()["items"] == []


def test_bad_query_parameters(served: Served) -> None:
    with served.client() as http:
        assert problem(http.get("/v1/episodes", params={"limit": "many"}), 422, "validation")["field"] == "limit"
        assert problem(http.get("/v1/facts/mira/city", params={"at": "noon"}), 422, "validation")["field"] == "at"
        assert problem(http.get("/v1/held", params={"status": "bogus"}), 422, "validation")["field"] == "status"
        problem(http.post("/v1/held/99999999999999999999999/confirm"), 422, "validation")


def test_huge_bodies_are_refused_before_reading(served: Served) -> None:
    huge = json.dumps({"id": "e1", "at": T0, "text": "x" * (MAX_BODY + 1)}).encode()
    with served.client() as http:
        problem(http.post("/v1/episodes", content=huge, headers={"content-type": "application/json"}),
                413, "too_large")

        def chunks() -> Any:
            for start in range(0, len(huge), 4096):
                yield huge[start:start + 4096]

        problem(http.post("/v1/episodes", content=chunks(), headers={"content-type": "application/json"}),
                413, "too_large")
        nothing_written(http)


ODD_TEXT = ["ünïcödé", "emoji 🧠🦊", "rtl \u202e txet", "zero\u200bwidth", "combining e\u0301", "\U0010ffff"]


def test_odd_but_valid_unicode_round_trips(served: Served) -> None:
    with served.client() as http:
        for index, text in enumerate(ODD_TEXT):
            created = http.post("/v1/episodes", json={"id": f"e{index}-{text}", "at": T0, "text": text})
            assert created.status_code == 201, created.text
            assert created.json()["text"] == text
            fact = {**FACT, "subject": f"s-{text}", "value": text, "source": f"e{index}-{text}"}
            assert http.post("/v1/facts", json=fact).status_code == 201
            found = http.get("/v1/facts", params={"subject": f"s-{text}"}).json()["items"]
            assert [a["value"] for a in found] == [text]


def test_idempotency_key_replays_the_first_response(served: Served) -> None:
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        headers = {"Idempotency-Key": "write-1"}
        first = http.post("/v1/facts", json=FACT, headers=headers)
        again = http.post("/v1/facts", json=FACT, headers=headers)
        assert first.status_code == again.status_code == 201
        assert first.json() == again.json()
        assert again.headers["idempotent-replayed"] == "true"
        plain = http.post("/v1/facts", json=FACT)
        assert plain.status_code == 200 and plain.json()["operation_id"] != first.json()["operation_id"]
        other = http.post("/v1/facts", json={**FACT, "value": "Oslo"}, headers=headers)
        problem(other, 422, "validation")
        assert http.get("/v1/facts/mira/city").json()["value"] == "Rome"

        refused = http.post("/v1/facts", json={**FACT, "value": "Paris"}, headers={"Idempotency-Key": "w-2"})
        replayed = http.post("/v1/facts", json={**FACT, "value": "Paris"}, headers={"Idempotency-Key": "w-2"})
        problem(refused, 409, "conflict")
        assert replayed.json() == refused.json()
        problem(http.post("/v1/facts", json=FACT, headers={"Idempotency-Key": b"bad key"}), 422, "validation")

    with served.client("globex") as other_tenant:  # keys are per tenant
        other_tenant.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        assert other_tenant.post("/v1/facts", json=FACT, headers=headers).status_code == 201


LINE_ENDINGS: dict[str, tuple[str, str, dict[str, Any] | None, dict[str, str] | None, str]] = {
    "episode at": ("POST", "/v1/episodes", {"id": "e2", "at": T0 + "\n", "text": "x"}, None, "at"),
    "fact valid_from": ("POST", "/v1/facts", {**FACT, "valid_from": T0 + "\r\n"}, None, "valid_from"),
    "retract at": ("POST", "/v1/retract", {"subject": "mira", "attribute": "city", "at": T0 + "\n",
                                           "source": "e1"}, None, "at"),
    "read at": ("GET", "/v1/facts/mira/city", None, {"at": T0 + "\n"}, "at"),
    "episode id": ("POST", "/v1/episodes", {"id": "e2\n", "at": T0, "text": "x"}, None, "id"),
    "fact subject": ("POST", "/v1/facts", {**FACT, "subject": "mira\n"}, None, "subject"),
    "consent subject": ("PUT", "/v1/consent/mira%0A", {"granted": False}, None, "path"),
    "erased subject": ("DELETE", "/v1/subjects/mira%0A", None, None, "path"),
    "erased episode": ("DELETE", "/v1/episodes/e1%0A", None, None, "path"),
}


@pytest.mark.parametrize("name", sorted(LINE_ENDINGS))
def test_a_final_newline_is_refused_naming_the_field(served: Served, name: str) -> None:
    method, path, body, params, field = LINE_ENDINGS[name]
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        assert http.post("/v1/facts", json={**FACT, "attribute": "home"}).status_code == 201
        document = problem(http.request(method, path, json=body, params=params), 422, "validation")
        assert document["field"] == field
        assert [e["id"] for e in http.get("/v1/episodes").json()] == ["e1"]
        kept = http.get("/v1/facts", params={"all_times": "true"}).json()["items"]
        assert [(a["subject"], a["attribute"]) for a in kept] == [("mira", "home")]
        assert http.get("/v1/consent").json() == []
