"""Who is calling: the bearer API key on every request, its tenant and scope.

No route reads a tenant from its path, query or body; handlers get it from ``Principal``.

Every request checks its key against the stored row, so a key revoked by any process
fails on the next request. What never changes about a key (its tenant, its scope, the
digest of its secret) is kept by ``KnownKeys`` once the key has authenticated, so a
route can start at once; the row is then read with the request's first store call, in
that call's hop (the request's ``AsyncMemory.around`` view) rather than in a thread hop of
its own, which cost a get about a third of its CPU, and on PostgreSQL by that call's
first statement rather than a round trip of its own (``access.checked_call``).
``KeyChecks`` sees to it that no answer leaves for a key its request has not checked: a
route that made no store call (``whoami``, a refusal) has its key checked before its
answer is sent, and a refused key's answer is replaced by the 401.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._core.errors import SgamError
from ..access import AuthenticationError, Principal, authenticate, checked_call, fingerprint
from ..access import Scope as KeyScope
from ..memory.asynchronous import AsyncMemory
from ..memory.facade import Memory
from ..store import Attempt, CallContext
from .backfills import workers_of
from .problems import problem_response

bearer = HTTPBearer(auto_error=False, description="An sgam API key (`sgam keys create`).")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
R = TypeVar("R")
KNOWN_KEYS_LIMIT = 10_000
"""Keys ``KnownKeys`` holds at most (the oldest is dropped; it authenticates again)."""


def memory_of(request: Request) -> AsyncMemory:
    """The request's view of the memory (``KeyChecks``), else the app's."""
    check = key_check_of(request)
    memory: AsyncMemory = request.app.state.memory
    return memory if check is None else memory.around(check)


def key_check_of(request: Request) -> KeyCheck | None:
    """The request's ``KeyCheck``, which ``KeyChecks`` put in its scope."""
    check = request.scope.get(_KEY_CHECK)
    return check if isinstance(check, KeyCheck) else None


_KEY_CHECK = "sgam.key_check"


class KnownKeys:
    """The principals of keys that authenticated, by key id and the digest of the secret
    presented (never a revocation state: that is read from the store on every request)."""

    def __init__(self, limit: int = KNOWN_KEYS_LIMIT) -> None:
        self._limit = limit
        self._by_id: dict[str, tuple[str, Principal]] = {}
        self._lock = threading.Lock()

    def principal(self, key: str) -> Principal | None:
        found = fingerprint(key)
        if found is None:
            return None
        with self._lock:
            known = self._by_id.get(found[0])
        if known is None or not hmac.compare_digest(known[0], found[1]):
            return None
        return known[1]

    def remember(self, key: str, principal: Principal) -> None:
        found = fingerprint(key)
        if found is None:
            return
        with self._lock:
            if found[0] not in self._by_id and len(self._by_id) >= self._limit:
                del self._by_id[next(iter(self._by_id))]
            self._by_id[found[0]] = (found[1], principal)

    def forget(self, key: str) -> None:
        found = fingerprint(key)
        if found is not None:
            with self._lock:
                self._by_id.pop(found[0], None)

    def __len__(self) -> int:
        return len(self._by_id)


class KeyCheck:
    """One request's key, read from the store once: with the request's first store call
    (``checked_call``: by that call's first statement on PostgreSQL, just before the call
    on SQLite), or before its answer if it made none. It runs each of the request's calls
    (``AsyncMemory.around``) on the memory bound to the request's context: the key while
    it is unread, and ``attempt``, the idempotent attempt the request's writes act for
    (``idempotency.once``). A refusal is raised again on every later call."""

    def __init__(self, known: KnownKeys) -> None:
        self.known = known
        self.refused: AuthenticationError | None = None
        self.attempt: Attempt | None = None
        self._key: str | None = None
        self._lock = threading.Lock()

    def expect(self, key: str) -> None:
        """The request goes on as ``key``'s known principal until its row is read."""
        self._key = key

    @property
    def pending(self) -> bool:
        return self._key is not None and self.refused is None

    def __call__(self, memory: Memory, call: Callable[[Memory], R], /) -> R:
        with self._lock:
            if self.refused is not None:
                raise self.refused
            key = self._key
        attempt = self.attempt
        if key is None:
            return call(memory if attempt is None else memory.bound(CallContext(attempt=attempt)))
        try:
            result = checked_call(memory, key, call, attempt)
        except AuthenticationError as exc:
            with self._lock:
                self.refused = exc
            self.known.forget(key)
            raise
        # a call that failed may have failed before its key was read: the key stays
        # pending, to be read before the error's answer leaves
        with self._lock:
            if self._key == key:
                self._key = None
        return result


def _nothing(_: Memory) -> None:
    """A call that does nothing but have the request's key checked."""


class KeyChecks:
    """ASGI middleware: gives each HTTP request its ``KeyCheck`` and holds its answer
    back until the key is checked; a refused key gets the 401 instead of the answer."""

    def __init__(self, app: ASGIApp, memory: AsyncMemory, known: KnownKeys) -> None:
        self.app = app
        self.memory = memory
        self.known = known

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        check = KeyCheck(self.known)
        refusing = False

        async def checked_send(message: Message) -> None:
            nonlocal refusing
            if message["type"] == "http.response.start":
                failed: SgamError | None = None
                if check.pending:
                    try:
                        await self.memory.around(check).call(_nothing)
                    except SgamError as exc:  # the store could not say (busy): answered as any route would
                        failed = exc
                error = check.refused or failed
                if error is not None:
                    refusing = True
                    headers = {"WWW-Authenticate": "Bearer"} if check.refused is not None else None
                    await problem_response(error, scope.get("path"), headers)(scope, receive, send)
            if not refusing:
                await send(message)

        scope[_KEY_CHECK] = check
        await self.app(scope, receive, checked_send)


async def principal(request: Request, credentials: HTTPAuthorizationCredentials | None) -> Principal:
    """The caller: a key that authenticated before goes on as its known principal (its row
    is read with the first store call); any other is looked up now."""
    if credentials is None:
        raise AuthenticationError("send an API key as 'Authorization: Bearer KEY'")
    key = credentials.credentials
    check = key_check_of(request)
    if check is not None:
        known = check.known.principal(key)
        if known is not None:
            check.expect(key)
            return known
    found = await memory_of(request).call(authenticate, key)
    if check is not None:
        check.known.remember(key, found)
    return found


def scoped(needed: KeyScope) -> Callable[[Request, HTTPAuthorizationCredentials | None], Awaitable[Principal]]:
    async def check(request: Request, credentials: Credentials) -> Principal:
        caller = await principal(request, credentials)
        caller.require(needed)
        await workers_of(request).resume(caller.tenant)
        return caller

    return check


Reader = Annotated[Principal, Depends(scoped("read"))]
Writer = Annotated[Principal, Depends(scoped("write"))]
Admin = Annotated[Principal, Depends(scoped("admin"))]
