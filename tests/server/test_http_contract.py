"""The HTTP API's contract as a client sees it: the OpenAPI description (problem
documents, the statuses each route can answer, operation ids), 405 with ``Allow``,
messages in words naming every wrong field, ``Location`` on 201, an unauthenticated
health route, and audit numbers that say nothing about other tenants."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Served

T0 = "2026-01-01T00:00:00Z"
PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemOut"}}}


def operations(served: Served) -> dict[tuple[str, str], dict[str, Any]]:
    with served.anonymous() as http:
        spec = http.get("/openapi.json").json()
    assert "ProblemOut" in spec["components"]["schemas"]
    return {(method.upper(), path): operation for path, methods in spec["paths"].items()
            for method, operation in methods.items()}


def errors_of(operation: dict[str, Any]) -> set[int]:
    return {int(status) for status in operation["responses"] if int(status) >= 400}


def test_problem_documents_are_declared_as_problem_json(served: Served) -> None:
    for key, operation in operations(served).items():
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                assert response["content"] == PROBLEM, (key, status)


def test_each_route_lists_only_the_statuses_it_can_answer(served: Served) -> None:
    found = operations(served)
    assert errors_of(found[("GET", "/v1/whoami")]) == {401, 503}
    assert errors_of(found[("GET", "/v1/health")]) == set()
    assert errors_of(found[("GET", "/v1/episodes/{episode_id}")]) == {401, 404, 422, 503}
    assert errors_of(found[("POST", "/v1/recall")]) == {400, 401, 413, 422, 503}
    assert errors_of(found[("POST", "/v1/facts")]) == {400, 401, 403, 404, 409, 413, 422, 503}
    for (method, path), operation in found.items():
        if method in ("GET", "DELETE"):  # no body: nothing to be malformed or too large
            assert not errors_of(operation) & {400, 413}, (method, path)
        if method == "GET":  # reads need only a read key and change nothing
            assert not errors_of(operation) & {403, 409}, (method, path)
    assert len({frozenset(errors_of(operation)) for operation in found.values()}) >= 6


def test_operation_ids_are_readable_and_unique(served: Served) -> None:
    found = operations(served)
    ids = [operation["operationId"] for operation in found.values()]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name) for name in ids), ids
    assert found[("POST", "/v1/facts")]["operationId"] == "write_fact"
    assert found[("GET", "/v1/facts/{subject}/{attribute}")]["operationId"] == "get_fact"
    assert found[("POST", "/v1/search")]["operationId"] == "search"
    assert found[("POST", "/v1/documents/search")]["operationId"] == "document_search"


def test_405_names_the_allowed_methods(served: Served) -> None:
    with served.client() as http:
        refused = http.put("/v1/facts", json={})
        assert refused.status_code == 405 and refused.headers["Allow"] == "GET, POST"
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.json()["detail"] == "PUT is not allowed here; use GET, POST"
        assert http.delete("/v1/whoami").headers["Allow"] == "GET"
        head = http.head("/v1/health")  # the methods Allow names are the ones the route answers
        assert head.status_code == 405 and head.headers["Allow"] == "GET"
        assert http.request(head.headers["Allow"], "/v1/health").status_code == 200


def test_messages_name_every_wrong_field_in_words(served: Served) -> None:
    with served.client() as http:
        empty = http.post("/v1/facts", json={})
        assert empty.status_code == 422
        assert empty.json()["detail"] == ("subject: is required; attribute: is required; value: is required; "
                                          "valid_from: is required; source: is required")
        assert [e["field"] for e in empty.json()["errors"]] == ["subject", "attribute", "value", "valid_from",
                                                                 "source"]
        typed = http.post("/v1/facts", json={"subject": None, "attribute": 5, "value": 1, "valid_from": T0,
                                             "source": "e1", "confidence": "high", "tenant": "globex"}).json()
        assert typed["detail"] == ('subject: must be a string, not null; attribute: must be a string, not the '
                                   'number 5; confidence: must be a number, not the string "high"; tenant: is not '
                                   'a field of this request')
        assert typed["field"] == "subject"
        text = http.post("/v1/episodes", content=b"hello", headers={"Content-Type": "text/plain"}).json()
        assert text["detail"] == "body: must be a JSON object, sent as Content-Type: application/json"
        query = http.get("/v1/facts", params={"limit": "many"}).json()
        assert query["detail"] == 'limit: must be an integer, not the string "many"'
        for document in (empty.json(), typed, text, query):
            assert not re.search(r"None|b'|Input should|pydantic", document["detail"]), document["detail"]


def test_201_names_where_the_new_resource_is(served: Served) -> None:
    with served.client() as http:
        made = http.post("/v1/episodes", json={"id": "slack/C42 1", "at": T0, "text": "Mira moved."})
        assert made.status_code == 201 and made.headers["Location"] == "/v1/episodes/slack/C42%201"
        assert http.get(made.headers["Location"]).json() == made.json()
        remembered = http.post("/v1/remember", json={"id": "e2", "at": T0, "text": "Omar moved."})
        assert remembered.status_code == 201 and remembered.headers["Location"] == "/v1/episodes/e2"
        assert http.get(remembered.headers["Location"]).json() == remembered.json()["episode"]
        created = http.post("/v1/documents/create", json={"path": "/memories/a b.md", "file_text": "x"})
        assert created.status_code == 201
        assert created.headers["Location"] == "/v1/documents/file?path=%2Fmemories%2Fa+b.md"
        assert http.get(created.headers["Location"]).json()["content"] == "x"


def test_health_needs_no_key_and_tells_nothing(served: Served) -> None:
    with served.anonymous() as http:
        answered = http.get("/v1/health")
        assert answered.status_code == 200 and answered.json() == {"status": "ok"}
        assert http.get("/v1/whoami").status_code == 401


def test_audit_numbers_count_only_the_tenants_own_entries(served: Served) -> None:
    with served.client("acme") as acme, served.client("globex") as globex:
        for subject in ("mira", "omar", "zed"):
            assert acme.put(f"/v1/consent/{subject}", json={"granted": False}).status_code == 200
        assert acme.delete("/v1/subjects/mira").status_code == 200
        assert globex.put("/v1/consent/ana", json={"granted": False}).status_code == 200
        assert acme.delete("/v1/subjects/omar").status_code == 200
        assert globex.delete("/v1/subjects/ana").status_code == 200
        assert [e["seq"] for e in globex.get("/v1/audit").json()] == [2, 1]
        assert [e["seq"] for e in acme.get("/v1/audit").json()] == [5, 4, 3, 2, 1]
        assert [e["seq"] for e in acme.get("/v1/audit", params={"limit": 2}).json()] == [5, 4]
