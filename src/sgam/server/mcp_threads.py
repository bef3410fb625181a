"""Read-only MCP tools over checkpoint memory: an agent can see where a run of its tenant
stopped and what it is waiting for. Registered only where LangGraph is installed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, get_type_hints

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field, create_model

from ..access import Principal, Scope
from ..boundary import to_json
from ..langgraph import threads as view
from ..langgraph.threads import ThreadDetail, ThreadSummary
from ..memory.asynchronous import AsyncMemory
from .mcp_server import ScopedServer

Guarded = Callable[[Scope, Callable[[Principal], Awaitable[Any]]], Awaitable[Any]]
Fenced = Callable[[dict[str, Any]], CallToolResult]


class ThreadsOutput(BaseModel):
    threads: list[ThreadSummary]


_DETAIL_FIELDS: dict[str, Any] = {name: (hint, ...) for name, hint in get_type_hints(ThreadDetail).items()}
ThreadOutput = create_model(
    "ThreadOutput", __doc__="What ``GET /v1/threads/{thread_id}`` answers: one ``ThreadDetail``.", **_DETAIL_FIELDS)
"""``ThreadDetail`` as a model: the SDK reads a slotted dataclass's fields as defaults."""


def register_threads(server: ScopedServer, memory: AsyncMemory, guarded: Guarded, fenced: Fenced) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.scoped_tool("read", read_only)
    async def list_threads(
        limit: Annotated[int, Field(ge=1, le=10_000, description="At most this many threads.")] = 100,
    ) -> Annotated[CallToolResult, ThreadsOutput]:
        """The checkpoint threads of LangGraph runs: retention class, number of checkpoints,
        when the first and last were stored."""
        found = await guarded("read", lambda p: asyncio.to_thread(view.list_threads, memory.memory, p.tenant, limit))
        return fenced({"threads": to_json(found)})

    @server.scoped_tool("read", read_only)
    async def show_thread(
        thread_id: Annotated[str, Field(min_length=1, description="The thread's id (LangGraph's thread_id).")],
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many checkpoints, newest first.")] = 20,
    ) -> Annotated[CallToolResult, ThreadOutput]:
        """Where a run stopped: whether it waits, finished or stopped, the state's values,
        the thread's checkpoints newest first with the channels written since each, and
        what the run is waiting for (the values of its interrupts). The same object as
        ``GET /v1/threads/{thread_id}``."""
        found = await guarded("read", lambda p: asyncio.to_thread(view.show_thread, memory.memory, p.tenant, thread_id,
                                                                  limit))
        detail: dict[str, Any] = to_json(found)
        return fenced(detail)
