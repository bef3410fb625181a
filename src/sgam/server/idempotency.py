"""``Idempotency-Key`` on POST: a retried request gets the first response, acting once.

The first request with a key reserves it (``INSERT ... ON CONFLICT DO NOTHING``, read
back: a reservation another request committed is never replaced) with a digest of the
request and a token naming this attempt, acts, then stores its response. A retry with
the same key and request replays that response; with another request it is refused
(422); while the first is still in flight it is told so (409).

Every write committed for the attempt marks the reservation in its own transaction
(``store._acting``), so a reservation left by a server that stopped mid-request says
whether it acted. Once older than ``ABANDONED_AFTER``, one that never acted is taken
over by the next retry (by replacing the token it read, so two retries cannot both act,
and the first attempt, should it still be running, can no longer write); one that acted
answers ``response_lost`` and never acts again. A 5xx releases the key only if nothing
was written; after a write it is the stored answer. Records are kept ``RETENTION`` long.

A stored response is a copy of what it quotes: erasure empties the responses naming what
it removes (``lifecycle.responses.StoredResponses``), and a retry is told so (410) without
acting again; a replay naming a subject whose consent is revoked is refused (403) as the
route would refuse it now.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.responses import Response

from .._core.errors import ConflictError, SgamError, ValidationError
from .._core.purpose import EVERY_PURPOSE, ConsentRow, allowed, refuse
from .._core.time import from_micros, to_micros
from ..access import Principal
from ..lifecycle.erasure import names
from ..memory.facade import Memory
from ..store import Attempt, IdempotencyRow, WriteTransaction
from .auth import key_check_of, memory_of
from .problems import PROBLEM_JSON, problem_response

HEADER = "Idempotency-Key"
ABANDONED_AFTER = 300 * 1_000_000
RETENTION = 24 * 3600 * 1_000_000
_KEY = re.compile(r"[\x21-\x7e]{1,255}")


class ResponseLost(ConflictError):
    """The first request with this key took effect, but the server stopped before storing
    its response: a retry cannot act again, so the caller reads the state instead."""

    kind = "response_lost"


class ResponseErased(SgamError):
    """The stored response quoted what has since been erased, so it was emptied; the
    request is not repeated (it would record the erased data again)."""

    kind = "response_erased"


@dataclass(frozen=True, slots=True)
class Replay:
    status: int
    body: str


async def _declared(key: Annotated[str | None, Header(
    alias=HEADER, description="Retry-safe POST: 1-255 printable ASCII characters naming this request. A retry "
    "with the same key and request gets the first response (`Idempotent-Replayed: true`) without acting twice; "
    "kept 24 hours per tenant.")] = None) -> None:
    """Declares the header in the OpenAPI document; ``once`` reads and checks it. A
    coroutine, so FastAPI calls it on the loop (a plain function would cost every POST a
    hop to its thread pool)."""


IDEMPOTENT = Depends(_declared)
"""In a POST route's ``dependencies``: the route answers through ``once``."""


def request_digest(method: str, path: str, query: str, body: bytes) -> str:
    """What makes two requests the same request: the body as parsed JSON, not its bytes (a
    client may re-serialise it with other spacing or key order)."""
    parts = (method.encode(), path.encode(), query.encode(), canonical_body(body))
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def canonical_body(body: bytes) -> bytes:
    """A JSON body in one spelling (sorted keys, no spaces); any other body as it came."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return body
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def reserve(memory: Memory, tenant: str, key: str, digest: str) -> Replay | Attempt:
    """Reserve ``key`` for a new attempt of this request, or answer from its first one."""
    now = to_micros(memory.clock())
    token = secrets.token_hex(16)

    def work(txn: WriteTransaction) -> Replay | Attempt:
        txn.expire_idempotency(now - RETENTION)
        if txn.reserve_idempotency(key, digest, now, token):
            return Attempt(tenant, key, token, now)
        row = txn.idempotency(key)
        if row is None:  # released by its attempt between the insert and this read
            raise _in_progress(key)
        return _answer(txn, row, digest, now, token)

    return memory.backend.run_write(tenant, work)


def _answer(txn: WriteTransaction, row: IdempotencyRow, digest: str, now: int, token: str) -> Replay | Attempt:
    """What a request finds when another attempt holds its key."""
    if row.request_digest != digest:
        raise ValidationError(HEADER, row.key, "was already used with a different request")
    if row.status is not None and row.erased_at is not None:
        raise ResponseErased(f"{HEADER} {row.key!r}: the response to the first request with this key quoted data "
                             "erased since; it is not replayed, and the request does not act again",
                             field=HEADER, value=row.key)
    if row.status is not None and row.response is not None:
        _check_consent(txn, row.response)
        return Replay(row.status, row.response)
    if row.created_at >= now - ABANDONED_AFTER:
        raise _in_progress(row.key)
    if row.acted_at is not None:
        raise ResponseLost(
            f"{HEADER} {row.key!r}: the first request with this key (at {from_micros(row.created_at).isoformat()}) "
            "took effect, but its response was never stored; it will not act again: read the current state",
            field=HEADER, value=row.key)
    if txn.take_over_idempotency(row.key, row.attempt, token, now):
        return Attempt(row.tenant, row.key, token, now)
    raise _in_progress(row.key)


def _check_consent(txn: WriteTransaction, response: str) -> None:
    """A replay answers as a read would now: a response naming a subject whose consent is
    revoked (for every purpose or any one) is refused as the route refuses it."""
    statements: dict[str, list[ConsentRow]] = {}
    for row in txn.consents(None):
        statements.setdefault(row.subject, []).append(row)
    for subject, rows in statements.items():
        revoked = [p for p in (None, *sorted({r.purpose for r in rows} - {EVERY_PURPOSE})) if not allowed(rows, p)]
        if revoked and names(response, subject):
            raise refuse(subject, revoked[0])


def _in_progress(key: str) -> ConflictError:
    return ConflictError(f"a request with {HEADER} {key!r} is still in progress; retry later", field=HEADER)


def finish(memory: Memory, attempt: Attempt, status: int | None, body: str) -> None:
    """Store the attempt's response; a 5xx, or no response at all (``status`` None),
    releases the key instead when none of the attempt's writes committed."""

    def work(txn: WriteTransaction) -> None:
        if status is None or status >= 500:
            if txn.release_idempotency(attempt.key, attempt.token) or status is None:
                return
        txn.finish_idempotency(attempt.key, attempt.token, status, body)

    memory.backend.run_write(attempt.tenant, work)


async def once(request: Request, caller: Principal, produce: Callable[[], Awaitable[Response]]) -> Response:
    """Answer a POST through ``produce`` once per ``Idempotency-Key`` (if the request has one)."""
    key = request.headers.get(HEADER)
    if key is None:
        return await produce()
    if not _KEY.fullmatch(key):
        raise ValidationError(HEADER, key, "must be 1-255 printable ASCII characters")
    memory = memory_of(request)
    digest = request_digest(request.method, request.url.path, request.url.query, await request.body())
    reserved = await memory.call(reserve, caller.tenant, key, digest)
    if isinstance(reserved, Replay):
        media = PROBLEM_JSON if reserved.status >= 400 else "application/json"
        return Response(reserved.body, status_code=reserved.status, media_type=media,
                        headers={"Idempotent-Replayed": "true"})
    check = key_check_of(request)
    if check is None:
        raise RuntimeError("an idempotent request is served behind KeyChecks, which names its attempt")
    check.attempt = reserved
    try:
        response = await produce()
    except SgamError as exc:  # the first answer, even a refusal, is what a retry gets
        response = problem_response(exc, request.url.path)
    except BaseException:
        check.attempt = None
        await memory.call(finish, reserved, None, "")
        raise
    check.attempt = None
    await memory.call(finish, reserved, response.status_code, bytes(response.body).decode())
    return response
