"""Who is calling: the bearer API key on every request, its tenant and scope.

The key is looked up again on each request (a revoked key fails on the next one). No
route reads a tenant from its path, query or body; handlers get it from ``Principal``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .._async import AsyncMemory
from ..access import AuthenticationError, Principal, Scope, authenticate

bearer = HTTPBearer(auto_error=False, description="An sgam API key (`sgam keys create`).")


def memory_of(request: Request) -> AsyncMemory:
    memory: AsyncMemory = request.app.state.memory
    return memory


async def principal(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> Principal:
    if credentials is None:
        raise AuthenticationError("send an API key as 'Authorization: Bearer KEY'")
    return await memory_of(request).call(authenticate, credentials.credentials)


def scoped(needed: Scope) -> Callable[[Principal], Awaitable[Principal]]:
    async def check(caller: Annotated[Principal, Depends(principal)]) -> Principal:
        caller.require(needed)
        return caller

    return check


Reader = Annotated[Principal, Depends(scoped("read"))]
Writer = Annotated[Principal, Depends(scoped("write"))]
Admin = Annotated[Principal, Depends(scoped("admin"))]
