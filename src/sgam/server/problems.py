"""Errors leave the HTTP API as RFC 9457 problem documents, statuses from the boundary.

Every failure — an sgam error, a body FastAPI could not parse or validate, an unknown
route, a body over the size limit, a bug — becomes ``application/problem+json`` carrying
sgam's error ``kind``. A bug answers 500 with a fixed text: no traceback leaves, and the
log gets one line (the full traceback only at DEBUG), so an error costs the event loop
microseconds, and the connection stays open.
"""

from __future__ import annotations

import json
import logging
import traceback
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._core.errors import NotFoundError, SgamError, ValidationError
from .._core.values import CONTROL, storable_text
from ..boundary import invalid_fields, problem

PROBLEM_JSON = "application/problem+json"
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
log = logging.getLogger("sgam.server")


class MalformedRequest(SgamError):
    """The body is not JSON (or not UTF-8) at all (HTTP 400)."""

    kind = "malformed"


class TooLarge(SgamError):
    """The body is larger than the server accepts (HTTP 413)."""

    kind = "too_large"


class RouteError(SgamError):
    """An HTTP-level refusal (unknown route, wrong method) carrying its own status."""

    kind = "route"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ProblemResponse(JSONResponse):
    """A problem document, whatever text it quotes: a lone surrogate from the request (a
    field's name, say) is sent as its JSON escape instead of failing to encode."""

    media_type = PROBLEM_JSON

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8", "backslashreplace")


def problem_response(error: SgamError, instance: str | None = None, headers: dict[str, str] | None = None
                     ) -> JSONResponse:
    document = problem(error, instance=instance)
    if isinstance(error, RouteError):
        document.update(status=error.status, title=HTTPStatus(error.status).phrase)
    return ProblemResponse(document, status_code=document["status"], headers=headers)


def internal_error(path: str | None) -> JSONResponse:
    return problem_response(SgamError("internal error; the server log has the details"), path)


def log_unexpected(method: str, path: str, exc: BaseException) -> None:
    """One line per bug: what was raised and where. Rendering a traceback is the cost that
    matters when a client can provoke errors at will, so the full one is for DEBUG only."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    log.error("unexpected error on %s %s: %s: %s%s", method, storable_text(path), type(exc).__name__,
              storable_text(str(exc))[:300], where)
    log.debug("traceback of the unexpected error", exc_info=exc)


def _validation_error(exc: RequestValidationError) -> SgamError:
    errors = exc.errors()
    if any(error.get("type") == "json_invalid" for error in errors):
        return MalformedRequest("request body is not valid JSON")
    return invalid_fields(errors, sections=("body", "query", "path", "header"))


def _allowed(request: Request) -> str:
    """The methods some route of the app answers at this path (a 405's ``Allow``),
    found by asking each route whether it would take the request under that method."""
    routes = request.app.router.routes
    methods = {method for method in METHODS
               if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes)}
    return ", ".join(sorted(methods))


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into a problem document."""

    @app.exception_handler(SgamError)
    async def sgam_error(request: Request, exc: SgamError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.kind == "unauthenticated" else None
        return problem_response(exc, request.url.path, headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return problem_response(_validation_error(exc), request.url.path)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return problem_response(NotFoundError(f"no route {request.url.path}"), request.url.path)
        if exc.status_code == 400:
            return problem_response(MalformedRequest("request body could not be parsed"), request.url.path)
        if exc.status_code == 405:
            allowed = _allowed(request)
            return problem_response(RouteError(405, f"{request.method} is not allowed here; use {allowed}"),
                                    request.url.path, {"Allow": allowed})
        return problem_response(RouteError(exc.status_code, str(exc.detail)), request.url.path)



class CatchUnexpected:
    """The outermost layer: an exception nothing else handled becomes the fixed 500
    problem document, logged by ``log_unexpected``. Caught here rather than by an
    exception handler, which Starlette re-raises after answering: the server would then
    log the traceback again and close the connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except Exception as exc:  # noqa: BLE001 - every bug becomes a 500, never a lost connection
            log_unexpected(scope.get("method", "?"), scope.get("path", "?"), exc)
            if not started:
                await internal_error(scope.get("path"))(scope, receive, send)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413 before the route reads them,
    whether announced by ``Content-Length`` or streamed in chunks."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, send)
            return
        seen = 0
        overflowed = answered = False

        async def limited_receive() -> Message:
            nonlocal seen, overflowed
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    overflowed = True
                    raise _Overflow
            return message

        async def guarded_send(message: Message) -> None:
            # Whatever the app answers to a body it could not finish reading, the caller
            # gets the 413 instead.
            nonlocal answered
            if overflowed:
                if not answered and message["type"] == "http.response.start":
                    answered = True
                    await self._refuse(scope, send)
                return
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _Overflow:
            if not answered:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        error = TooLarge(f"request body larger than {self.limit} bytes")
        body = json.dumps(problem(error, instance=scope.get("path"))).encode()
        headers = [(b"content-type", PROBLEM_JSON.encode()), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class PlainPath:
    """Refuse a request whose path holds a control character with 422 before routing.
    Routes match their pattern with ``$``, which also matches before a final newline: a
    ``{subject:path}`` would take ``/v1/subjects/mira%0A`` for ``mira`` (and erase her)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not CONTROL.search(path):
            await self.app(scope, receive, send)
            return
        error = ValidationError("path", path, "must not contain control characters (a line break, a tab)")
        body = json.dumps(problem(error, instance=path)).encode()
        headers = [(b"content-type", PROBLEM_JSON.encode()), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 422, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _Overflow(Exception):
    """Raised inside the app when the streamed body passes the limit."""
