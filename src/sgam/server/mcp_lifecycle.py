"""MCP tools over the lifecycle: consent (write keys), retention classes and the audit log
(read keys), and, for admin keys, declaring a retention class and purging what is past
its deadline. The tenant is always the caller's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from .._core.model import AuditEntry, ConsentState, PurgeResult
from ..access import Principal, Scope
from ..boundary import to_json
from ..memory.asynchronous import AsyncMemory
from .mcp_params import Limit, Purpose, Subject
from .mcp_server import ScopedServer
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


ClassName = Annotated[str, Field(description="The retention class's name, e.g. chat")]


def register_lifecycle(server: ScopedServer, memory: AsyncMemory, guarded: Guarded, fenced: Fenced) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.scoped_tool("write", ToolAnnotations(destructive_hint=False, idempotent_hint=True,
                                                 open_world_hint=False))
    async def set_consent(
        subject: Subject,
        granted: Annotated[bool, Field(description="true: memory about the subject may be used; false: revoked")],
        purpose: Annotated[str | None, Field(
            description="The one purpose this concerns (e.g. marketing). Default: every purpose")] = None,
    ) -> Annotated[CallToolResult, ConsentOutput]:
        """Record, from now on, whether memory about `subject` may be used (for `purpose`, or
        every purpose when omitted). While revoked nothing about the subject is returned or
        written; revoking erases nothing."""
        state = await guarded("write", lambda p: memory.consent(p.tenant, subject, granted, purpose=purpose))
        return fenced({"consent": to_json(state)})

    @server.scoped_tool("read", read_only)
    async def get_consent(subject: Subject, purpose: Purpose = None) -> Annotated[CallToolResult, ConsentedOutput]:
        """Whether memory about `subject` may be used now (for `purpose`)."""
        allowed = await guarded("read", lambda p: memory.consented(p.tenant, subject, purpose=purpose))
        return fenced({"subject": subject, "purpose": purpose, "consented": allowed})

    @server.scoped_tool("read", read_only)
    async def retention_classes() -> Annotated[CallToolResult, RetentionOutput]:
        """The retention classes (how long each class of episodes is kept, and what expiry does)."""
        found = await guarded("read", lambda p: memory.retention_classes(p.tenant))
        return fenced({"classes": [class_out(c).model_dump(mode="json") for c in found]})

    @server.scoped_tool("read", read_only)
    async def audit_log(limit: Limit = 100) -> Annotated[CallToolResult, AuditOutput]:
        """Erasures, expiries and consent changes, newest first: counts and keyed digests only."""
        entries = await guarded("read", lambda p: memory.audit(p.tenant, limit=limit))
        return fenced({"entries": to_json(entries)})

    @server.scoped_tool("admin", ToolAnnotations(destructive_hint=True, idempotent_hint=True,
                                                 open_world_hint=False))
    async def set_retention(
        name: ClassName,
        ttl: Annotated[str | None, Field(
            description="How long the class is kept after it was recorded: an ISO 8601 duration of days, hours, "
                        "minutes or seconds (P30D, PT12H); null keeps it until erased")],
        on_expiry: Annotated[Literal["erase", "keep_facts"], Field(
            description="erase: everything of the class goes; keep_facts: the episodes lose their text, the "
                        "facts stay")] = "erase",
    ) -> Annotated[CallToolResult, RetentionClassOutput]:
        """Declare or redeclare a retention class. Moves every deadline of the class. Needs an
        admin key."""
        found = await guarded("admin", lambda p: memory.retention(p.tenant, name, ttl, on_expiry=on_expiry))
        return fenced({"retention_class": class_out(found).model_dump(mode="json")})

    @server.scoped_tool("admin", ToolAnnotations(destructive_hint=True, open_world_hint=False))
    async def purge() -> Annotated[CallToolResult, PurgeOutput]:
        """Erase everything past its deadline now. Needs an admin key."""
        result = await guarded("admin", lambda p: memory.purge(p.tenant))
        return fenced({"result": to_json(result)})
