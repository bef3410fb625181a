"""MCP tools over document memory: ``memory_files`` runs the memory tool's six commands
(view, create, str_replace, insert, delete, rename) on the caller's files under /memories,
and ``search_documents`` finds passages. What they return from documents is fenced as
data, like every tool's memory; a refused command is a tool error with the memory tool's
own text. ``view`` and search need a read key, the other commands a write key."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from .._async import AsyncMemory
from .._memory import Memory
from ..access import Principal, Scope
from ..boundary import to_json
from ..documents import DocumentHit, MemoryTool, ToolResult

Guarded = Callable[[Scope, Callable[[Principal], Awaitable[Any]]], Awaitable[Any]]
Fenced = Callable[[dict[str, Any]], CallToolResult]
Command = Literal["view", "create", "str_replace", "insert", "delete", "rename"]


class FilesOutput(BaseModel):
    text: str = Field(description="The memory tool's result: listings, file text with line numbers, confirmations")


class DocumentSearchOutput(BaseModel):
    hits: list[DocumentHit]


def register_documents(server: MCPServer, memory: AsyncMemory, guarded: Guarded, fenced: Fenced) -> None:
    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def memory_files(
        command: Command, path: str | None = None, view_range: list[int] | None = None,
        file_text: str | None = None, old_str: str | None = None, new_str: str | None = None,
        insert_line: int | None = None, insert_text: str | None = None, old_path: str | None = None,
        new_path: str | None = None,
    ) -> Annotated[CallToolResult, FilesOutput]:
        """Your files under /memories (the memory tool's commands): `view` a directory or a
        file (`view_range` [first, last] lines), `create` a file with `file_text`,
        `str_replace` `old_str` (exactly once) with `new_str`, `insert` `insert_text` after
        line `insert_line`, `delete` a path, `rename` `old_path` to `new_path`. Every change
        keeps the earlier revision."""
        arguments = {name: value for name, value in (
            ("command", command), ("path", path), ("view_range", view_range), ("file_text", file_text),
            ("old_str", old_str), ("new_str", new_str), ("insert_line", insert_line),
            ("insert_text", insert_text), ("old_path", old_path), ("new_path", new_path)) if value is not None}

        async def run(p: Principal) -> ToolResult:
            def call(m: Memory) -> ToolResult:
                return MemoryTool(m, p.tenant, author=f"mcp:{p.key_id}").run(arguments)

            return await memory.call(call)

        result: ToolResult = await guarded("read" if command == "view" else "write", run)
        if result.is_error:
            raise ToolError(result.text)
        return fenced({"text": result.text})

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    async def search_documents(query: str, limit: int = 10) -> Annotated[CallToolResult, DocumentSearchOutput]:
        """Passages of your files under /memories for a query, each citing path, revision and lines."""

        async def run(p: Principal) -> list[DocumentHit]:
            return await memory.call(lambda m: m.documents.search(p.tenant, query, limit=limit))

        return fenced({"hits": to_json(await guarded("read", run))})
