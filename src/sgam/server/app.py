"""The FastAPI application: the HTTP API under ``/v1`` and the MCP server at ``/mcp``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.routing import Route

from .. import __version__
from ..ledger.backfill import BATCH
from ..memory.asynchronous import AsyncMemory
from . import health, openapi, problems, routes_documents, routes_ledger, routes_lifecycle, routes_memory, ui
from .auth import KeyChecks, KnownKeys
from .backfills import BackfillWorkers
from .http11 import HeadLimit
from .limits import INSPECTOR_SESSIONS, MCP_SESSIONS, SessionLimits
from .mcp import ApiKeyVerifier, build_mcp, token_caller
from .mcp_sessions import McpSessionQuota, OpenSessions

DEFAULT_MAX_BODY = 1_048_576
MCP_IDLE_SECONDS = 30 * 60
"""An MCP session without a request for this long is closed (the SDK's default, made ours)."""


def _include_threads(app: FastAPI) -> None:
    """Checkpoint routes where LangGraph is installed (they rebuild checkpoints with it)."""
    try:
        from . import routes_threads
    except ImportError:
        return
    app.include_router(routes_threads.router)


def create_app(
    memory: AsyncMemory, *, max_body: int = DEFAULT_MAX_BODY, extract: bool = False,
    public_url: str = "http://127.0.0.1:8000", allowed_hosts: list[str] | None = None,
    mcp_sessions: SessionLimits = MCP_SESSIONS, inspector_sessions: SessionLimits = INSPECTOR_SESSIONS,
    backfill_batch: int = BATCH, resume_backfills: bool = True,
) -> FastAPI:
    """The service over ``memory``. ``extract``: a model is configured, so ``remember``
    extracts at once by default; ``public_url`` and ``allowed_hosts`` name how clients
    reach the server (the MCP transport refuses other ``Host`` headers);
    ``mcp_sessions`` and ``inspector_sessions``: how many sessions a key, a tenant and
    the server may hold open; ``backfill_batch``: subjects per batch of the backfills the
    server runs; ``resume_backfills``: a tenant's first request resumes its unfinished
    backfills (server/backfills.py)."""
    from mcp.server.transport_security import TransportSecuritySettings

    mcp_server = build_mcp(memory, token_caller, verifier=ApiKeyVerifier(memory), issuer=public_url,
                           extract=extract)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *(allowed_hosts or [])]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts] + [f"https://{host}" for host in hosts])
    mcp_app = mcp_server.streamable_http_app(streamable_http_path="/mcp", transport_security=security,
                                             max_request_body_size=max_body, max_sessions=mcp_sessions.total,
                                             session_idle_timeout=MCP_IDLE_SECONDS)
    backfills = BackfillWorkers(memory, backfill_batch, resume_backfills)
    mcp_quota = McpSessionQuota(mcp_app, memory, OpenSessions(mcp_sessions, MCP_IDLE_SECONDS))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_server.session_manager.run():
            try:
                yield
            finally:
                await backfills.stop()

    app = FastAPI(
        title="sgam", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
        description="Typed, bitemporal, tenant-scoped memory for AI agents. Every route but "
                    "`GET /v1/health` needs `Authorization: Bearer KEY`; the tenant and scope come from the key.",
        generate_unique_id_function=openapi.operation_id,
    )
    app.state.memory = memory
    app.state.extract_by_default = extract
    app.state.backfills = backfills
    problems.install(app)
    openapi.describe(app)
    app.include_router(health.router)
    app.include_router(routes_ledger.router)
    app.include_router(routes_memory.router)
    app.include_router(routes_lifecycle.router)
    app.include_router(routes_documents.router)
    _include_threads(app)
    ui.install(app, inspector_sessions)
    app.router.routes.append(Route("/mcp", endpoint=mcp_quota, include_in_schema=False))
    app.add_middleware(KeyChecks, memory=memory, known=KnownKeys())
    app.add_middleware(problems.BodyLimit, limit=max_body)
    app.add_middleware(HeadLimit)
    app.add_middleware(problems.PlainPath)
    app.add_middleware(problems.CatchUnexpected)
    return app
