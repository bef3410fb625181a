"""MCP sessions counted per API key and per tenant, in front of the SDK's transport.

The SDK bounds only the total: one read key once opened 9,995 sessions and every other
tenant got 503. ``McpSessionQuota`` wraps the streamable HTTP app: a request that opens a
session (no ``Mcp-Session-Id``) is authenticated here and refused with 429 when its key
or tenant holds its share already; a session the SDK opens is then counted against them
until the client deletes it or it has been idle longer than the SDK keeps idle sessions.
Everything runs on the event loop, so no lock is needed: nothing awaits between checking
a share and reserving a place in it.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..access import AuthenticationError, Principal, authenticate
from ..memory.asynchronous import AsyncMemory
from .limits import SessionLimits

SESSION_HEADER = "mcp-session-id"
IDLE_GRACE_SECONDS = 60.0
"""Counted a little longer than the SDK keeps an idle session, so a session is never
forgotten here while the SDK still serves it."""


@dataclass(slots=True)
class _Use:
    key_id: str
    tenant: str
    in_flight: int = 0
    last_active: float = 0.0


class OpenSessions:
    """Which key and tenant each open MCP session belongs to, and the places reserved
    by sessions being opened right now."""

    def __init__(self, limits: SessionLimits, idle_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.idle_seconds = idle_seconds + IDLE_GRACE_SECONDS
        self.clock = clock
        self._sessions: dict[str, _Use] = {}
        self._opening_by_key: Counter[str] = Counter()
        self._opening_by_tenant: Counter[str] = Counter()
        self._by_key: Counter[str] = Counter()
        self._by_tenant: Counter[str] = Counter()

    def count(self, principal: Principal) -> tuple[int, int]:
        """Sessions (open and being opened) of the principal's key and of its tenant."""
        self._forget_idle()
        return (self._by_key[principal.key_id] + self._opening_by_key[principal.key_id],
                self._by_tenant[principal.tenant] + self._opening_by_tenant[principal.tenant])

    def reserve(self, principal: Principal) -> str | None:
        """Reserve a place for a session being opened, or say why there is none."""
        by_key, by_tenant = self.count(principal)
        if by_key >= self.limits.per_key:
            return (f"this API key has {by_key} MCP sessions open, its limit: end one (DELETE /mcp "
                    "with its Mcp-Session-Id) or let one idle out")
        if by_tenant >= self.limits.per_tenant:
            return f"this tenant has {by_tenant} MCP sessions open, its limit: end one or let one idle out"
        self._opening_by_key[principal.key_id] += 1
        self._opening_by_tenant[principal.tenant] += 1
        return None

    def settle(self, principal: Principal, session_id: str | None) -> None:
        """The opening request ended: its place holds the new session, or is freed."""
        _decrement(self._opening_by_key, principal.key_id)
        _decrement(self._opening_by_tenant, principal.tenant)
        if session_id is not None and session_id not in self._sessions:
            self._sessions[session_id] = _Use(principal.key_id, principal.tenant, last_active=self.clock())
            self._by_key[principal.key_id] += 1
            self._by_tenant[principal.tenant] += 1

    def begin(self, session_id: str) -> None:
        use = self._sessions.get(session_id)
        if use is not None:
            use.in_flight += 1

    def end(self, session_id: str, *, gone: bool) -> None:
        """A request of the session ended; ``gone``: the session ended with it."""
        use = self._sessions.get(session_id)
        if use is None:
            return
        use.in_flight -= 1
        use.last_active = self.clock()
        if gone:
            self._drop(session_id)

    def _forget_idle(self) -> None:
        horizon = self.clock() - self.idle_seconds
        for session_id in [s for s, use in self._sessions.items() if not use.in_flight and use.last_active < horizon]:
            self._drop(session_id)

    def _drop(self, session_id: str) -> None:
        use = self._sessions.pop(session_id, None)
        if use is not None:
            _decrement(self._by_key, use.key_id)
            _decrement(self._by_tenant, use.tenant)


def _decrement(counts: Counter[str], name: str) -> None:
    counts[name] -= 1
    if counts[name] <= 0:
        del counts[name]


class McpSessionQuota:
    """ASGI middleware over the MCP app: every key and tenant gets its share of sessions."""

    def __init__(self, app: ASGIApp, memory: AsyncMemory, sessions: OpenSessions) -> None:
        self.app = app
        self.memory = memory
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        session_id = headers.get(SESSION_HEADER)
        if session_id is not None:
            await self._in_session(session_id, scope, receive, send)
            return
        principal = await self._principal(headers)
        if principal is None:  # the SDK answers 401
            await self.app(scope, receive, send)
            return
        refusal = self.sessions.reserve(principal)
        if refusal is not None:
            await _refuse(refusal, send)
            return
        opened: str | None = None

        async def watching(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = Headers(raw=message.get("headers", [])).get(SESSION_HEADER)
            await send(message)

        try:
            await self.app(scope, receive, watching)
        finally:
            self.sessions.settle(principal, opened)

    async def _in_session(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        status = 0

        async def watching(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        self.sessions.begin(session_id)
        try:
            await self.app(scope, receive, watching)
        finally:  # a 404 may answer another key presenting this id: only the owner's DELETE ends it
            self.sessions.end(session_id, gone=scope.get("method") == "DELETE" and 0 < status < 400)

    async def _principal(self, headers: Headers) -> Principal | None:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return None
        try:
            principal: Principal = await self.memory.call(authenticate, token.strip())
        except AuthenticationError:
            return None
        return principal


async def _refuse(reason: str, send: Send) -> None:
    """429 with a JSON-RPC error, as the SDK answers its own refusals."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": reason}}).encode()
    await send({"type": "http.response.start", "status": 429, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", b"60")]})
    await send({"type": "http.response.body", "body": body})
