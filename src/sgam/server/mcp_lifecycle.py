"""MCP tools over the lifecycle: consent (write keys), retention classes and the audit log
(read keys), and, only where the server offers admin tools, declaring a retention class
and purging what is past its deadline. The tenant is always the caller's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from .._async import AsyncMemory
from .._model import AuditEntry, ConsentState, PurgeResult
from ..access import Principal, Scope
from ..boundary import to_json
from .models import RetentionClassOut
from .routes_lifecycle import class_out

Guarded = Callable[[Scope, Callable[[Principal], Awaitable[Any]]], Awaitable[Any]]
Fenced = Callable[[dict[str, Any]], CallToolResult]


class ConsentOutput(BaseModel):
    consent: ConsentState


class ConsentedOutput(BaseModel):
    subject: str
    purpose: str | None
    consented: bool


class RetentionOutput(BaseModel):
    classes: list[RetentionClassOut]


class RetentionClassOutput(BaseModel):
    retention_class: RetentionClassOut


class AuditOutput(BaseModel):
    entries: list[AuditEntry]


class PurgeOutput(BaseModel):
    result: PurgeResult


def register_lifecycle(server: MCPServer, memory: AsyncMemory, guarded: Guarded, fenced: Fenced, *,
                       admin_tools: bool) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False))
    async def set_consent(subject: str, granted: bool,
                          purpose: str | None = None) -> Annotated[CallToolResult, ConsentOutput]:
        """Record, from now on, whether memory about `subject` may be used (for `purpose`, or
        every purpose when omitted). While revoked nothing about the subject is returned or
        written; revoking erases nothing."""
        state = await guarded("write", lambda p: memory.consent(p.tenant, subject, granted, purpose=purpose))
        return fenced({"consent": to_json(state)})

    @server.tool(annotations=read_only)
    async def get_consent(subject: str, purpose: str | None = None) -> Annotated[CallToolResult, ConsentedOutput]:
        """Whether memory about `subject` may be used now (for `purpose`)."""
        allowed = await guarded("read", lambda p: memory.consented(p.tenant, subject, purpose=purpose))
        return fenced({"subject": subject, "purpose": purpose, "consented": allowed})

    @server.tool(annotations=read_only)
    async def retention_classes() -> Annotated[CallToolResult, RetentionOutput]:
        """The retention classes (how long each class of episodes is kept, and what expiry does)."""
        found = await guarded("read", lambda p: memory.retention_classes(p.tenant))
        return fenced({"classes": [class_out(c).model_dump(mode="json") for c in found]})

    @server.tool(annotations=read_only)
    async def audit_log(limit: int = 100) -> Annotated[CallToolResult, AuditOutput]:
        """Erasures, expiries and consent changes, newest first: counts and keyed digests only."""
        entries = await guarded("read", lambda p: memory.audit(p.tenant, limit=limit))
        return fenced({"entries": to_json(entries)})

    if not admin_tools:
        return

    @server.tool(annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False))
    async def set_retention(name: str, ttl: str | None,
                            on_expiry: str = "erase") -> Annotated[CallToolResult, RetentionClassOutput]:
        """Declare or redeclare a retention class: `ttl` an ISO 8601 duration (P30D, PT12H) or
        null (kept until erased); `on_expiry` erase or keep_facts. Moves every deadline of the
        class. Needs an admin key."""
        found = await guarded("admin", lambda p: memory.retention(p.tenant, name, ttl, on_expiry=on_expiry))
        return fenced({"retention_class": class_out(found).model_dump(mode="json")})

    @server.tool(annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False))
    async def purge() -> Annotated[CallToolResult, PurgeOutput]:
        """Erase everything past its deadline now. Needs an admin key."""
        result = await guarded("admin", lambda p: memory.purge(p.tenant))
        return fenced({"result": to_json(result)})
