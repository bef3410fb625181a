"""Model clients: who answers an extraction prompt.

``OpenAIClient`` speaks the chat-completions protocol that OpenAI, vLLM, llama.cpp's
server and Ollama share, asking for JSON-schema structured output. ``ScriptedClient``
returns queued replies in order, for tests, replay and demos. Both report token counts
and latency, because every call is recorded with the extraction.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
import jsonschema

from .._core.errors import ModelError as ModelError  # its home is _errors; extraction code imports it from here
from .._core.errors import ValidationError
from .._core.values import storable_text


@dataclass(frozen=True, slots=True)
class ModelRequest:
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    schema_name: str = "sgam_updates"


@dataclass(slots=True)
class ModelResponse:
    """The raw text of the reply and what the call cost."""

    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    repaired: bool = False


class ModelClient(Protocol):
    """Anything that turns an extraction prompt into a raw reply."""

    def complete(self, request: ModelRequest) -> ModelResponse: ...


@dataclass(slots=True)
class ScriptedClient:
    """Returns queued replies in order; a non-string reply is sent as its JSON text."""

    replies: deque[Any] = field(default_factory=deque)
    model: str = "scripted"

    @classmethod
    def of(cls, replies: Iterable[Any]) -> ScriptedClient:
        queued = deque(replies)
        for reply in queued:
            _reply_text(reply)
        return cls(queued)

    def queue(self, reply: Any) -> None:
        _reply_text(reply)
        self.replies.append(reply)

    def __len__(self) -> int:
        return len(self.replies)

    def complete(self, request: ModelRequest) -> ModelResponse:
        if not self.replies:
            raise ModelError("the scripted model has no reply queued", field="model_reply")
        return ModelResponse(text=_reply_text(self.replies.popleft()), model=self.model)


def _reply_text(reply: Any) -> str:
    """A scripted reply as the text a model would send: a string as it is, anything else
    as its JSON text (a ValidationError if it has none)."""
    if isinstance(reply, str):
        return reply
    try:
        return json.dumps(reply, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise ValidationError("model_reply", reply, "must be text or a JSON value") from None


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """Where and how to reach an OpenAI-compatible server."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 0.5
    temperature: float = 0.0

    @classmethod
    def from_env(cls, **overrides: Any) -> ClientSettings:
        """Read ``SGAM_LLM_BASE_URL``, ``SGAM_LLM_MODEL`` and ``SGAM_LLM_API_KEY`` now
        (never at import); explicit overrides win."""
        base_url = overrides.pop("base_url", None) or os.environ.get("SGAM_LLM_BASE_URL")
        model = overrides.pop("model", None) or os.environ.get("SGAM_LLM_MODEL")
        if not base_url:
            raise ModelError(
                "no model configured: set SGAM_LLM_BASE_URL (e.g. http://localhost:8080/v1)",
                field="SGAM_LLM_BASE_URL",
            )
        if not model:
            raise ModelError("no model configured: set SGAM_LLM_MODEL", field="SGAM_LLM_MODEL")
        api_key = overrides.pop("api_key", None) or os.environ.get("SGAM_LLM_API_KEY")
        return cls(base_url=base_url, model=model, api_key=api_key, **overrides)


_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAIClient:
    """Chat completions with ``response_format: json_schema`` over httpx.

    Retries 429/5xx and connection errors with exponential backoff (honouring
    ``Retry-After``), and makes one repair request when the reply is not JSON of the
    schema, showing the model its own reply and the error.
    """

    def __init__(
        self, settings: ClientSettings | None = None, *, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.settings = settings if settings is not None else ClientSettings.from_env()
        headers = {"Authorization": f"Bearer {self.settings.api_key}"} if self.settings.api_key else {}
        self._http = httpx.Client(
            base_url=self.settings.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=self.settings.timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIClient:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.monotonic()
        messages = list(request.messages)
        body, attempts = self._post(self._payload(request, messages))
        usage = [body]
        text = _content(body)
        problem = _problem(text, request.schema)
        repaired = False
        if problem is not None:
            messages += [  # the reply as it can be sent back: a lone surrogate has no UTF-8
                {"role": "assistant", "content": storable_text(text)},
                {
                    "role": "user",
                    "content": f"That reply is not valid: {problem}. Reply again with only a "
                    "JSON object that follows the schema.",
                },
            ]
            body, more = self._post(self._payload(request, messages))
            usage.append(body)
            attempts += more
            text, repaired = _content(body), True
        return ModelResponse(
            text=text,
            model=str(body.get("model") or self.settings.model),
            prompt_tokens=_tokens(usage, "prompt_tokens"),
            completion_tokens=_tokens(usage, "completion_tokens"),
            latency_ms=(time.monotonic() - started) * 1000,
            attempts=attempts,
            repaired=repaired,
        )

    def _payload(self, request: ModelRequest, messages: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.schema},
            },
        }

    def _post(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """POST with bounded retries; returns the decoded body and the number of tries."""
        delay = self.settings.backoff
        last = ""
        for attempt in range(1, self.settings.max_retries + 2):
            try:
                response = self._http.post("chat/completions", json=payload)
            except httpx.TimeoutException as exc:
                last = f"timed out after {self.settings.timeout}s ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last = f"could not reach {self.settings.base_url} ({exc})"
            else:
                if response.status_code < 400:
                    return _decode(response), attempt
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                if response.status_code not in _RETRY_STATUS:
                    raise ModelError(
                        f"model server refused the request: {last}",
                        field="status",
                        value=response.status_code,
                    )
                delay = max(delay, _retry_after(response))
            if attempt <= self.settings.max_retries:
                time.sleep(delay * (1 + 0.1 * random.random()))
                delay *= 2
        raise ModelError(
            f"model call failed after {self.settings.max_retries + 1} tries: {last}",
            field="model",
            value=self.settings.model,
        )


def _decode(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        raise ModelError(
            f"model server sent a non-JSON response: {response.text[:200]}", field="response"
        ) from None
    if not isinstance(body, dict):
        raise ModelError("model server sent a response that is not an object", field="response", value=body)
    return body


def _content(body: dict[str, Any]) -> str:
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ModelError("model response has no choices[0].message.content", field="choices") from None
    return content if isinstance(content, str) else json.dumps(content)


def _problem(text: str, schema: dict[str, Any]) -> str | None:
    """Why ``text`` is not JSON of ``schema``, or None when it is."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return "not valid Unicode (it has a lone surrogate)"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc})"
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        return f"does not follow the schema ({exc.message})"
    return None


def _retry_after(response: httpx.Response) -> float:
    try:
        return min(float(response.headers.get("retry-after", "0")), 30.0)
    except ValueError:
        return 0.0


def _tokens(bodies: list[dict[str, Any]], name: str) -> int | None:
    counts = [b.get("usage", {}).get(name) for b in bodies if isinstance(b.get("usage"), dict)]
    numbers = [c for c in counts if isinstance(c, int)]
    return sum(numbers) if numbers else None
