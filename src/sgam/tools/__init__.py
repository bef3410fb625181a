"""Agent tools over ``Memory``: the memory tool's file commands on ``Documents``
(``MemoryTool``), and Anthropic's memory tool on top of it (``sgam.tools.anthropic``)."""

from __future__ import annotations

from .memory_tool import MemoryTool, ToolResult

__all__ = ["MemoryTool", "ToolResult"]
