"""The MCP server class sgam's tools run in: one tool list per scope, sgam's error text.

Each tool is registered with the scope it needs; ``tools/list`` shows the caller only
the tools its scope allows, so stdio (scope fixed at start) and streamable HTTP (scope
of the request's API key) list the same tools for the same scope. A failed call answers
the model with sgam's error kind and message, naming the field, for an argument the
input schema refused as for an error sgam raised (a conflict, whose message quotes
stored state, fenced as data), instead of the SDK's "Error executing tool" prefix and
pydantic's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import ValidationError as PydanticValidationError

from .._core.errors import ConflictError, NotFoundError, SgamError
from ..access import Principal, Scope
from ..boundary import invalid_fields
from ..recall.render import CLOSE, OPEN, quote

Caller = Callable[[], Principal]
Function = TypeVar("Function", bound=Callable[..., Any])


def _message(error: SgamError) -> str:
    """The message, and the field when the message does not begin with it."""
    if error.field is not None and not error.message.startswith(f"{error.field}:"):
        return f"{error.message} (field: {error.field})"
    return error.message


def error_text(error: SgamError) -> str:
    """``kind: message``: for a refused call (its arguments, its scope, its tool name)."""
    return f"{error.kind}: {_message(error)}"


def fenced_error(error: SgamError) -> str:
    """A conflict: the kind, then the message inside the memory fence. Its message quotes
    stored state (the value held, which anyone with a write key chose), so it is quoted
    like recalled text: it cannot close the fence or pass as an instruction."""
    return f"{error.kind}: {OPEN}\n{quote(_message(error))}\n{CLOSE}"


class ScopedServer(MCPServer):
    """An ``MCPServer`` whose tools act for ``caller()`` and are listed by its scope.
    Every tool is registered through ``scoped_tool``: ``scopes`` names them all."""

    def __init__(self, caller: Caller, **settings: Any) -> None:
        super().__init__(**settings)
        self.caller = caller
        self.scopes: dict[str, Scope] = {}

    def scoped_tool(self, needed: Scope, annotations: ToolAnnotations) -> Callable[[Function], Function]:
        """Register a tool listed for callers whose scope allows ``needed``."""
        def register(function: Function) -> Function:
            self.scopes[function.__name__] = needed
            return self.tool(annotations=annotations)(function)

        return register

    async def list_tools(self) -> list[MCPTool]:
        principal = self.caller()
        return [tool for tool in await super().list_tools() if principal.allows(self.scopes.get(tool.name, "admin"))]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in self.scopes:
            return self._refused(error_text(NotFoundError(f"no tool {name!r}; tools/list names the tools of this "
                                                          "caller's scope", field="name", value=name)))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            text = self._refusal(exc)
            if text is None:
                raise
            return self._refused(text)

    @staticmethod
    def _refused(text: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

    @staticmethod
    def _refusal(exc: ToolError) -> str | None:
        """What the model reads for a refused call; None for a crash (the SDK logs it
        and answers without its text)."""
        cause = exc.__cause__
        if isinstance(cause, ConflictError):
            return fenced_error(cause)
        if isinstance(cause, SgamError):
            return error_text(cause)
        if isinstance(cause, PydanticValidationError):
            return error_text(invalid_fields(cause.errors()))
        if isinstance(cause, ToolError):
            return str(cause)
        return None if isinstance(exc, UnexpectedToolError) else str(exc)
