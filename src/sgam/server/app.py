"""The FastAPI application: the HTTP API under ``/v1`` and the MCP server at ``/mcp``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.routing import Route

from .. import __version__
from .._async import AsyncMemory
from . import problems, routes_documents, routes_ledger, routes_lifecycle, routes_memory, ui
from .mcp import ApiKeyVerifier, build_mcp, token_caller
from .models import ProblemOut

DEFAULT_MAX_BODY = 1_048_576


def create_app(
    memory: AsyncMemory, *, max_body: int = DEFAULT_MAX_BODY, extract: bool = False,
    public_url: str = "http://127.0.0.1:8000", allowed_hosts: list[str] | None = None,
) -> FastAPI:
    """The service over ``memory``. ``extract``: a model is configured, so ``remember``
    extracts at once by default; ``public_url`` and ``allowed_hosts`` name how clients
    reach the server (the MCP transport refuses other ``Host`` headers)."""
    from mcp.server.transport_security import TransportSecuritySettings

    mcp_server = build_mcp(memory, token_caller, verifier=ApiKeyVerifier(memory), issuer=public_url,
                           extract=extract)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *(allowed_hosts or [])]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts] + [f"https://{host}" for host in hosts])
    mcp_app = mcp_server.streamable_http_app(streamable_http_path="/mcp", transport_security=security,
                                             max_request_body_size=max_body)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            yield

    app = FastAPI(
        title="sgam", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
        description="Typed, bitemporal, tenant-scoped memory for AI agents. Every route needs "
                    "`Authorization: Bearer KEY`; the tenant and scope come from the key.",
        responses={status: {"model": ProblemOut, "content": {problems.PROBLEM_JSON: {}},
                            "description": description}
                   for status, description in ((400, "Malformed request"), (401, "Missing or invalid API key"),
                                               (403, "Key scope too low"), (404, "Not found"),
                                               (409, "Conflict with stored state"), (413, "Body too large"),
                                               (422, "Invalid input"), (503, "Busy or model unavailable"))},
    )
    app.state.memory = memory
    app.state.extract_by_default = extract
    problems.install(app)
    app.include_router(routes_ledger.router)
    app.include_router(routes_memory.router)
    app.include_router(routes_lifecycle.router)
    app.include_router(routes_documents.router)
    ui.install(app)
    app.router.routes.append(Route("/mcp", endpoint=mcp_app, include_in_schema=False))
    app.add_middleware(problems.BodyLimit, limit=max_body)
    app.add_middleware(problems.PlainPath)
    return app
