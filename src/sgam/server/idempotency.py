"""``Idempotency-Key`` on POST: a retried request gets the first response, acting once.

The first request with a key reserves it with a digest of the request (method, path,
query and body) in the tenant's store, acts, then stores its response. A retry with the
same key and request replays that response; with another request it is refused (422);
while the first is still in flight it is told so (409). A response the server failed to
produce (5xx) releases the key, so the retry acts. A reservation older than
``ABANDONED_AFTER`` (a server killed mid-request) no longer blocks; records are kept
``RETENTION`` long.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

from .._errors import ConflictError, SgamError, ValidationError
from .._memory import Memory
from .._time import to_micros
from ..access import Principal
from ..store import WriteTransaction
from .auth import memory_of
from .problems import PROBLEM_JSON, problem_response

HEADER = "Idempotency-Key"
ABANDONED_AFTER = 300 * 1_000_000
RETENTION = 24 * 3600 * 1_000_000
_KEY = re.compile(r"[\x21-\x7e]{1,255}")


@dataclass(frozen=True, slots=True)
class Replay:
    status: int
    body: str


def reserve(memory: Memory, tenant: str, key: str, digest: str) -> Replay | None:
    """Reserve ``key`` for this request, or the stored response of its first attempt."""
    now = to_micros(memory.clock())

    def work(txn: WriteTransaction) -> Replay | None:
        row = txn.idempotency(key)
        if row is not None and row.created_at >= now - RETENTION:
            if row.request_digest != digest:
                raise ValidationError(HEADER, key, "was already used with a different request")
            if row.status is not None and row.response is not None:
                return Replay(row.status, row.response)
            if row.created_at >= now - ABANDONED_AFTER:
                raise ConflictError(f"a request with {HEADER} {key!r} is still in progress; retry later",
                                    field=HEADER)
        txn.expire_idempotency(now - RETENTION)
        txn.reserve_idempotency(key, digest, now)
        return None

    return memory.backend.run_write(tenant, work)


def finish(memory: Memory, tenant: str, key: str, status: int, body: str) -> None:
    def work(txn: WriteTransaction) -> None:
        if status >= 500:
            txn.release_idempotency(key)
        else:
            txn.finish_idempotency(key, status, body)

    memory.backend.run_write(tenant, work)


async def once(request: Request, caller: Principal, produce: Callable[[], Awaitable[Response]]) -> Response:
    """Answer a POST through ``produce`` once per ``Idempotency-Key`` (if the request has one)."""
    key = request.headers.get(HEADER)
    if key is None:
        return await produce()
    if not _KEY.fullmatch(key):
        raise ValidationError(HEADER, key, "must be 1-255 printable ASCII characters")
    memory = memory_of(request)
    body = await request.body()
    digest = hashlib.sha256(b"\0".join((request.method.encode(), request.url.path.encode(),
                                        request.url.query.encode(), body))).hexdigest()
    replay = await memory.call(reserve, caller.tenant, key, digest)
    if replay is not None:
        media = PROBLEM_JSON if replay.status >= 400 else "application/json"
        return Response(replay.body, status_code=replay.status, media_type=media,
                        headers={"Idempotent-Replayed": "true"})
    try:
        response = await produce()
    except SgamError as exc:  # the first answer, even a refusal, is what a retry gets
        response = problem_response(exc, request.url.path)
    except BaseException:
        await memory.call(finish, caller.tenant, key, 500, "")
        raise
    await memory.call(finish, caller.tenant, key, response.status_code, bytes(response.body).decode())
    return response
