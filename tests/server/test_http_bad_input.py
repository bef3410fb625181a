"""Bad requests get the right status and a problem document, write nothing and leak no
traceback; a retried POST with an Idempotency-Key acts once."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import httpx
import pytest

from sgam import AsyncMemory, Memory
from sgam.access import create_key
from sgam.server import create_app

from .conftest import MAX_BODY, Served, ServerThread, free_port, serve

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
            subject = f"s-{text}"
            if any(unicodedata.category(char) == "Cf" for char in text):
                # an invisible format character would make a subject apart from the one it
                # looks like: refused in subject ids, kept in values and episodes
                refused = http.post("/v1/facts", json={**FACT, "subject": subject, "source": f"e{index}-{text}"})
                assert refused.status_code == 422 and refused.json()["field"] == "subject", refused.text
                subject = f"s-{index}"
            fact = {**FACT, "subject": subject, "value": text, "source": f"e{index}-{text}"}
            assert http.post("/v1/facts", json=fact).status_code == 201
            found = http.get("/v1/facts", params={"subject": subject}).json()["items"]
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


PAST_64_BITS = str(2**63)
JSON_HEADERS = {"content-type": "application/json"}
UNSTORABLE = {"lone surrogate": b"tea \\ud800", "NUL": b"tea \\u0000"}
DOCUMENT = "/memories/a.md"

# (scope, method, path, query or JSON text with {text} for the unstorable text, field)
REFUSED_INTEGERS = [
    ("read", "GET", "/v1/documents/revision", {"path": DOCUMENT, "revision": PAST_64_BITS}, "revision"),
    ("read", "GET", "/v1/documents/diff", {"path": DOCUMENT, "old": PAST_64_BITS}, "revision"),
    ("write", "POST", "/v1/documents/restore", b'{"path": "%s", "revision": %s}', "revision"),
    ("write", "POST", "/v1/documents/write", b'{"path": "%s", "file_text": "x", "expected_revision": %s}',
     "expected_revision"),
]
REFUSED_TEXTS = [
    ("read", "/v1/recall", b'{"question": "{text}"}', "question"),
    ("read", "/v1/search", b'{"question": "{text}"}', "question"),
    ("read", "/v1/documents/search", b'{"query": "{text}"}', "query"),
    ("write", "/v1/facts", b'{"subject": "mira", "attribute": "note", "value": "{text}", '
                           b'"valid_from": "2026-01-01T00:00:00Z", "source": "e1"}', "value"),
    ("write", "/v1/facts", b'{"subject": "mira", "attribute": "note", "value": {"a": ["{text}"]}, '
                           b'"valid_from": "2026-01-01T00:00:00Z", "source": "e1"}', "value.a[0]"),
    ("write", "/v1/episodes", b'{"id": "e2", "at": "2026-01-01T00:00:00Z", "text": "x", '
                              b'"metadata": {"a": "{text}"}}', "metadata.a"),
]


def stored(http: httpx.Client) -> Any:
    return (http.get("/v1/facts", params={"all_times": "true"}).json()["items"], http.get("/v1/episodes").json(),
            http.get("/v1/documents/history", params={"path": DOCUMENT}).json())


def seeded(served: Served) -> Any:
    with served.client() as http:
        http.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "Mira likes tea."})
        http.post("/v1/facts", json=FACT)
        http.post("/v1/documents/create", json={"path": DOCUMENT, "file_text": "Mira likes tea."})
        return stored(http)


@pytest.mark.parametrize("case", REFUSED_INTEGERS, ids=[f"{c[2]}" for c in REFUSED_INTEGERS])
def test_integers_past_64_bits_are_422_naming_the_field(served: Served, case: Any) -> None:
    scope, method, path, given, field = case
    before = seeded(served)
    with served.client("acme", scope) as http:
        if isinstance(given, bytes):
            response = http.request(method, path, content=given % (DOCUMENT.encode(), PAST_64_BITS.encode()),
                                    headers=JSON_HEADERS)
        else:
            response = http.request(method, path, params=given)
        assert problem(response, 422, "validation")["field"] == field
        assert http.get("/v1/whoami").status_code == 200  # the same connection still serves
    with served.client() as http:
        assert stored(http) == before


@pytest.mark.parametrize("text", sorted(UNSTORABLE))
@pytest.mark.parametrize("case", REFUSED_TEXTS, ids=[f"{c[1]}-{c[3]}" for c in REFUSED_TEXTS])
def test_text_no_backend_stores_is_422_naming_the_field(served: Served, case: Any, text: str) -> None:
    scope, path, body, field = case
    before = seeded(served)
    with served.client("acme", scope) as http:
        response = http.post(path, content=body.replace(b"{text}", UNSTORABLE[text]), headers=JSON_HEADERS)
        assert problem(response, 422, "validation")["field"] == field
    with served.client() as http:
        assert stored(http) == before


def test_a_bug_answers_500_logs_one_line_and_keeps_the_connection(
    db_url: str, caplog: pytest.LogCaptureFixture,
) -> None:
    memory = Memory(db_url)
    app = create_app(AsyncMemory(memory, workers=2))

    async def broken() -> None:
        raise RuntimeError("a bug with a secret-looking text")

    app.add_api_route("/v1/broken", broken)
    key = create_key(memory, "acme", "read").key
    port = free_port()
    with ServerThread(app, port), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30,
                                                 headers={"Authorization": f"Bearer {key}"}) as http:
        with caplog.at_level(logging.INFO):
            document = problem(http.get("/v1/broken"), 500, "error")
        assert "secret" not in document["detail"]
        assert http.get("/v1/whoami").status_code == 200  # not closed after the error
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None
    line = errors[0].getMessage()
    assert "RuntimeError: a bug with a secret-looking text" in line and "/v1/broken" in line
    assert "\n" not in line
    memory.close()


def test_building_the_app_leaves_logging_to_the_application(tmp_path: Path) -> None:
    """The MCP SDK installs a rich handler on the root logger: rendering one traceback took
    seconds of the event loop. After ``create_app`` no handler renders rich tracebacks
    (libraries' own ``NullHandler``s, which render nothing, aside: LangGraph's, where the
    checkpoint routes are installed)."""
    script = (
        "import logging\n"
        "from sgam import AsyncMemory, Memory\n"
        "from sgam.server import build_mcp, create_app, fixed_caller\n"
        f"memory = AsyncMemory(Memory({f'sqlite:///{tmp_path}/sgam.db'!r}))\n"
        "create_app(memory)\n"
        "build_mcp(memory, fixed_caller('acme', 'read'))\n"
        "loggers = [logging.getLogger()] + [logging.getLogger(name) for name in logging.Logger.manager.loggerDict]\n"
        "print(sorted({type(h).__name__ for logger in loggers for h in logger.handlers\n"
        "              if not isinstance(h, logging.NullHandler)}), logging.getLogger().level)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.split() == ["[]", str(logging.WARNING)]


@pytest.mark.parametrize("size", [70_000, 200_000, 1_000_000])
def test_oversized_headers_get_431_not_a_reset(db_url: str, size: int) -> None:
    """uvicorn alone answered a bare 400 and closed while the head was still arriving: the
    client got a connection reset. The answer is 431, and it arrives."""
    with Memory(db_url) as memory, serve(memory) as running:
        with running.client("acme", "read") as http:
            assert http.get("/v1/whoami", headers={"X-Pad": "a" * 40_000}).status_code == 200  # within the limit
            problem(http.get("/v1/whoami", headers={"X-Pad": "a" * size}), 431, "headers_too_large")

        with socket.create_connection(("127.0.0.1", int(running.url.rsplit(":", 1)[1])), timeout=30) as raw:
            raw.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            for _ in range(size // 8192 + 1):  # a slow client, the head in pieces
                raw.sendall(b"X-Pad-" + b"a" * 8192 + b": x\r\n")
            raw.sendall(b"\r\n")
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert json.loads(body)["kind"] == "headers_too_large"
        with running.client("acme", "read") as http:  # and the server serves on
            assert http.get("/v1/whoami").status_code == 200

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
