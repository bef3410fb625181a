"""MCP tools over document memory: ``memory_files`` runs the memory tool's six commands
(view, create, str_replace, insert, delete, rename) on the caller's files under /memories,
and ``search_documents`` finds passages. What they return from documents is fenced as
data, like every tool's memory; ``memory_files`` fences the memory tool's own text (a
listing, a file's numbered lines) as plain text, with only the fence's tags escaped, so
the model reads it as the tool wrote it. A refused command is a tool error with the
memory tool's own text. ``view`` and search need a read key, the other commands a write
key."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from ..access import Principal, Scope
from ..boundary import to_json
from ..documents import DocumentHit
from ..memory.asynchronous import AsyncMemory
from ..memory.facade import Memory
from ..recall.render import CLOSE, OPEN
from ..tools import MemoryTool, ToolResult
from .mcp_params import Limit
from .mcp_server import ScopedServer

Guarded = Callable[[Scope, Callable[[Principal], Awaitable[Any]]], Awaitable[Any]]
Fenced = Callable[[dict[str, Any]], CallToolResult]
Command = Literal["view", "create", "str_replace", "insert", "delete", "rename"]
FENCE_TAG = re.compile(r"<(?=/?memory)", re.IGNORECASE)
ESCAPED_LT = r"\\u003c"
MemoryPath = Annotated[str | None, Field(
    description="A path under /memories, e.g. /memories/notes.md (view, create, str_replace, insert, delete)")]


class FilesOutput(BaseModel):
    text: str = Field(description="The memory tool's result: listings, file text with line numbers, confirmations")


class DocumentSearchOutput(BaseModel):
    hits: list[DocumentHit]


def fenced_text(text: str) -> CallToolResult:
    """The memory tool's text inside the fence as it reads, only the fence's own tags
    escaped (``<`` as ``\\u003c``, as quoted records escape it), so it cannot close the fence."""
    escaped = FENCE_TAG.sub(ESCAPED_LT, text)
    return CallToolResult(content=[TextContent(type="text", text=f"{OPEN}\n{escaped}\n{CLOSE}")],
                          structured_content={"text": text})


def register_documents(server: ScopedServer, memory: AsyncMemory, guarded: Guarded, fenced: Fenced) -> None:
    @server.scoped_tool("read", ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def memory_files(
        command: Annotated[Command, Field(description="The memory tool's command; view needs a read key, the "
                                                      "others a write key")],
        path: MemoryPath = None,
        view_range: Annotated[list[int] | None, Field(
            min_length=2, max_length=2, description="view of a file: [first, last] line, 1-based; -1 as last: "
                                                    "to the end")] = None,
        file_text: Annotated[str | None, Field(description="create: the whole text of the new file")] = None,
        old_str: Annotated[str | None, Field(description="str_replace: text that occurs exactly once")] = None,
        new_str: Annotated[str | None, Field(description="str_replace: what replaces it")] = None,
        insert_line: Annotated[int | None, Field(
            ge=0, description="insert: the line after which to insert (0: at the top)")] = None,
        insert_text: Annotated[str | None, Field(description="insert: the text to insert")] = None,
        old_path: Annotated[str | None, Field(description="rename: the path to move")] = None,
        new_path: Annotated[str | None, Field(description="rename: where it goes")] = None,
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
        return fenced_text(result.text)

    @server.scoped_tool("read", ToolAnnotations(read_only_hint=True, open_world_hint=False))
    async def search_documents(
        query: Annotated[str, Field(description="What to look for, in natural language or keywords")],
        limit: Limit = 10,
    ) -> Annotated[CallToolResult, DocumentSearchOutput]:
        """Passages of your files under /memories for a query, each citing path, revision and lines."""

        async def run(p: Principal) -> list[DocumentHit]:
            return await memory.call(lambda m: m.documents.search(p.tenant, query, limit=limit))

        return fenced({"hits": to_json(await guarded("read", run))})
