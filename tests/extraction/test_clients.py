"""The OpenAI-compatible client against a real local HTTP server with scripted answers."""

from __future__ import annotations

import json

import pytest

from sgam.extraction import (
    ClientSettings,
    ModelError,
    ModelRequest,
    OpenAIClient,
    ScriptedClient,
    response_schema,
)

from .conftest import ModelServer, completion

GOOD = json.dumps(
    {
        "updates": [
            {
                "evidence": "It is now 2026-06-30.",
                "subject": "mira",
                "attribute": "passport_deadline",
                "current_value": None,
                "change": "update",
                "value": "2026-06-30",
                "valid_from": None,
                "confidence": 0.9,
                "stated": True,
            }
        ]
    }
)
REQUEST = ModelRequest(messages=[{"role": "user", "content": "extract"}], schema=response_schema())


def client(server: ModelServer, **overrides: object) -> OpenAIClient:
    settings = {
        "base_url": server.url,
        "model": "local-test",
        "api_key": "k",
        "timeout": 2.0,
        "max_retries": 2,
        "backoff": 0.01,
        **overrides,
    }
    return OpenAIClient(ClientSettings(**settings))  # type: ignore[arg-type]


def test_sends_json_schema_structured_output_and_records_usage(model_server: ModelServer) -> None:
    model_server.reply(200, completion(GOOD))
    with client(model_server) as c:
        response = c.complete(REQUEST)
    assert response.text == GOOD
    assert (response.prompt_tokens, response.completion_tokens, response.attempts) == (11, 7, 1)
    assert response.latency_ms > 0
    sent = model_server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["auth"] == "Bearer k"
    assert sent["body"]["response_format"]["type"] == "json_schema"
    assert sent["body"]["response_format"]["json_schema"]["schema"] == response_schema()


def test_retries_429_then_succeeds(model_server: ModelServer) -> None:
    model_server.reply(429, {"error": "slow down"}, **{"retry-after": "0"})
    model_server.reply(200, completion(GOOD))
    with client(model_server) as c:
        response = c.complete(REQUEST)
    assert response.attempts == 2 and response.text == GOOD


def test_gives_up_after_bounded_5xx_retries(model_server: ModelServer) -> None:
    for _ in range(3):
        model_server.reply(500, {"error": "boom"})
    with client(model_server) as c, pytest.raises(ModelError, match="after 3 tries.*HTTP 500"):
        c.complete(REQUEST)
    assert len(model_server.requests) == 3


def test_client_errors_are_not_retried(model_server: ModelServer) -> None:
    model_server.reply(401, {"error": "bad key"})
    with client(model_server) as c, pytest.raises(ModelError, match="401"):
        c.complete(REQUEST)
    assert len(model_server.requests) == 1


def test_one_repair_attempt_on_malformed_json(model_server: ModelServer) -> None:
    model_server.reply(200, completion('Sure! {"updates": ['))
    model_server.reply(200, completion(GOOD, 20, 9))
    with client(model_server) as c:
        response = c.complete(REQUEST)
    assert response.repaired and response.text == GOOD
    assert response.prompt_tokens == 31 and response.completion_tokens == 16
    repair = model_server.requests[1]["body"]["messages"]
    assert repair[-2] == {"role": "assistant", "content": 'Sure! {"updates": ['}
    assert "not valid" in repair[-1]["content"]


def test_only_one_repair_the_second_bad_reply_is_returned(model_server: ModelServer) -> None:
    model_server.reply(200, completion('{"facts": []}'))
    model_server.reply(200, completion("still not json"))
    with client(model_server) as c:
        response = c.complete(REQUEST)
    assert response.text == "still not json" and len(model_server.requests) == 2


def test_timeout_is_a_model_error(model_server: ModelServer) -> None:
    for _ in range(2):
        model_server.reply(200, completion(GOOD), delay=0.6)
    with client(model_server, timeout=0.2, max_retries=1) as c, pytest.raises(ModelError, match="timed out"):
        c.complete(REQUEST)


def test_settings_come_from_the_environment_at_construction(
    monkeypatch: pytest.MonkeyPatch, model_server: ModelServer
) -> None:
    monkeypatch.delenv("SGAM_LLM_BASE_URL", raising=False)
    with pytest.raises(ModelError, match="SGAM_LLM_BASE_URL"):
        OpenAIClient()
    monkeypatch.setenv("SGAM_LLM_BASE_URL", model_server.url)
    monkeypatch.setenv("SGAM_LLM_MODEL", "from-env")
    monkeypatch.delenv("SGAM_LLM_API_KEY", raising=False)
    model_server.reply(200, completion(GOOD))
    with OpenAIClient() as c:
        c.complete(REQUEST)
    assert model_server.requests[0]["body"]["model"] == "from-env"
    assert model_server.requests[0]["auth"] is None


def test_scripted_client_replays_in_order_then_fails() -> None:
    scripted = ScriptedClient.of([{"updates": []}, "not json"])
    assert scripted.complete(REQUEST).text == '{"updates": []}'
    assert scripted.complete(REQUEST).text == "not json"
    with pytest.raises(ModelError, match="no reply queued"):
        scripted.complete(REQUEST)
