"""HTTP/1.1 for ``sgam serve``: uvicorn's h11 protocol, with an oversized request head
answered 431 and the connection closed gently.

uvicorn answers a head that does not fit its buffer with a bare 400 and closes at once,
with the rest of the head still arriving: the kernel then resets the connection and the
client, still writing, never reads the answer (200 KB of headers got "connection reset").
Here the answer is 431 with a problem document, and the connection lingers: our side is
shut for writing, whatever the client still sends is read and dropped, and the socket
closes when the client is done (or after ``LINGER_SECONDS``), so the answer arrives.
A head that h11 parsed whole in one read is held to the same limit by ``HeadLimit``, in
front of the app, whatever server runs it.
"""

from __future__ import annotations

import json
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .._core.errors import SgamError
from ..boundary import problem

MAX_HEAD_BYTES = 64 * 1024
"""The largest request line and headers accepted, in bytes."""
LINGER_SECONDS = 5.0
LINGER_BYTES = 64 * 1024 * 1024
"""Dropped at most while lingering: a client that keeps sending past this is cut off."""


class HeadersTooLarge(SgamError):
    """The request line and headers are larger than the server accepts (HTTP 431)."""

    kind = "headers_too_large"


def too_large_document(path: str | None) -> bytes:
    error = HeadersTooLarge(f"request line and headers larger than {MAX_HEAD_BYTES} bytes")
    return json.dumps(problem(error, instance=path)).encode()


def head_bytes(scope: Scope) -> int:
    """The size of a request's line and headers as sent (near enough: separators counted)."""
    line = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 16
    return line + sum(len(name) + len(value) + 4 for name, value in scope.get("headers") or ())


class HeadLimit:
    """ASGI middleware: a request whose head is over ``MAX_HEAD_BYTES`` gets 431."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or head_bytes(scope) <= MAX_HEAD_BYTES:
            await self.app(scope, receive, send)
            return
        body = too_large_document(scope.get("path"))
        await send({"type": "http.response.start", "status": 431, "headers": [
            (b"content-type", b"application/problem+json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class SgamH11Protocol(H11Protocol):
    """``H11Protocol`` that answers a request head over the limit with 431 and lingers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lingering = False
        self._dropped = 0

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            self._dropped += len(data)
            if self._dropped > LINGER_BYTES:
                self.transport.close()
            return
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        buffered, _ = self.conn.trailing_data
        if len(buffered) <= MAX_HEAD_BYTES:  # a malformed request, not an oversized head
            super().send_400_response(msg)
            return
        body = too_large_document(None)
        headers = [(b"content-type", b"application/problem+json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        for event in (h11.Response(status_code=431, headers=headers, reason=b"Request Header Fields Too Large"),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)


def uvicorn_config(app: Any, host: str, port: int, **options: Any) -> uvicorn.Config:
    """How ``sgam serve`` runs uvicorn: h11 with the head limit above, no server header."""
    return uvicorn.Config(app, host=host, port=port, http=SgamH11Protocol, h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                          server_header=False, **options)
