"""A real local OpenAI-compatible HTTP server with scripted responses, and store fixtures."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def completion(content: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": "local-test",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


@dataclass
class Scripted:
    status: int
    body: Any
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class ModelServer:
    """Answers POST /v1/chat/completions from a queue; an empty queue repeats ``default``."""

    def __init__(self) -> None:
        self.queue: deque[Scripted] = deque()
        self.default: Scripted | None = None
        self.responder: Callable[[dict[str, Any]], Scripted] | None = None
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                server.requests.append(
                    {
                        "path": self.path,
                        "body": json.loads(self.rfile.read(length)),
                        "auth": self.headers.get("authorization"),
                    }
                )
                body = server.requests[-1]["body"]
                if server.queue:
                    reply: Scripted | None = server.queue.popleft()
                elif server.responder is not None:
                    reply = server.responder(body)
                else:
                    reply = server.default
                if reply is None:
                    reply = Scripted(500, {"error": "nothing scripted"})
                time.sleep(reply.delay)
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def reply(self, status: int, body: Any, delay: float = 0.0, **headers: str) -> None:
        self.queue.append(Scripted(status, body, delay, headers))

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def episode_in_prompt(body: dict[str, Any]) -> dict[str, Any]:
    """The episode block of an extraction prompt, as the model sees it."""
    user = body["messages"][-1]["content"]
    block = user.split("episode:\nBEGIN DATA\n", 1)[1].split("\nEND DATA", 1)[0]
    data: dict[str, Any] = json.loads(block)
    return data


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer()
    yield server
    server.close()
