"""The memory tool for Anthropic's Python SDK (``pip install 'sgam[anthropic]'``).

``SgamMemoryTool(memory, tenant)`` is a ``BetaAbstractMemoryTool``: pass it in ``tools``
to ``client.beta.messages.run_tools`` and each ``memory`` command Claude sends runs
against the tenant's documents. An error result becomes the SDK's ``ToolError``, which
the tool runner returns as a ``tool_result`` with ``is_error: true``.
``SgamAsyncMemoryTool`` is the same for the async runner (calls run in a worker thread).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio.to_thread import run_sync

from .memory_tool import MemoryTool

if TYPE_CHECKING:
    from ..memory.facade import Memory


def _input(command: Any) -> dict[str, Any]:
    data: dict[str, Any] = command.model_dump(exclude_none=True)
    return data


def _answer(tool: MemoryTool, command: Any) -> str:
    result = tool.run(_input(command))
    if result.is_error:
        raise ToolError(result.text)
    return result.text


class SgamMemoryTool(BetaAbstractMemoryTool):
    """sgam's ``MemoryTool`` behind the SDK's memory-tool interface."""

    def __init__(
        self, memory: Memory, tenant: str, *, author: str = "memory-tool", episode: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.tool = MemoryTool(memory, tenant, author=author, episode=episode)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return _answer(self.tool, command)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return _answer(self.tool, command)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return _answer(self.tool, command)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return _answer(self.tool, command)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return _answer(self.tool, command)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return _answer(self.tool, command)


class SgamAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async twin of ``SgamMemoryTool``: each command runs in a worker thread."""

    def __init__(
        self, memory: Memory, tenant: str, *, author: str = "memory-tool", episode: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.tool = MemoryTool(memory, tenant, author=author, episode=episode)

    async def _run(self, command: Any) -> str:
        return await run_sync(_answer, self.tool, command)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._run(command)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._run(command)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._run(command)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._run(command)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._run(command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._run(command)
