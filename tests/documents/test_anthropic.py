"""The SDK adapter: Anthropic's tool runner drives ``SgamMemoryTool`` through the real
client, whose HTTP transport replays scripted Messages API replies."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.lib.tools import ToolError

from sgam import Memory
from sgam.tools.anthropic import SgamAsyncMemoryTool, SgamMemoryTool

T = "acme"


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def _tool_use(id: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "memory", "input": input}


class ScriptedApi:
    """Answers each POST /v1/messages with the next scripted message; keeps the requests."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        return httpx2.Response(200, json=self.replies[len(self.requests) - 1])


def test_the_tool_runner_executes_memory_commands_against_the_tenants_documents(memory: Memory) -> None:
    api = ScriptedApi([
        _message([_tool_use("toolu_1", {"command": "create", "path": "/memories/prefs.md",
                                        "file_text": "likes coffee\n"})], "tool_use"),
        _message([_tool_use("toolu_2", {"command": "view", "path": "/memories/missing.md"}),
                  _tool_use("toolu_3", {"command": "view", "path": "/memories"})], "tool_use"),
        _message([{"type": "text", "text": "Noted."}], "end_turn"),
    ])
    client = anthropic.Anthropic(api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api)),
                                 max_retries=0)
    tool = SgamMemoryTool(memory, T, episode="conversation-1")
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    final = client.beta.messages.tool_runner(
        model="claude-test", max_tokens=100, tools=[tool],
        messages=[{"role": "user", "content": "Remember that I like coffee"}],
    ).until_done()
    assert final.content[0].type == "text"
    assert memory.documents.read(T, "/memories/prefs.md").content == "likes coffee\n"
    assert memory.documents.history(T, "/memories/prefs.md")[0].episode == "conversation-1"
    results = [block for request in api.requests[1:] for block in request["messages"][-1]["content"]]
    assert [(r["tool_use_id"], r["content"], r.get("is_error", False)) for r in results] == [
        ("toolu_1", "File created successfully at: /memories/prefs.md", False),
        ("toolu_2", "The path /memories/missing.md does not exist. Please provide a valid path.", True),
        ("toolu_3", "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
                    "13B\t/memories\n13B\t/memories/prefs.md", False),
    ]
    assert api.requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]


def test_errors_are_tool_errors_and_change_nothing(memory: Memory) -> None:
    tool = SgamMemoryTool(memory, T)
    with pytest.raises(ToolError, match="Path must start with /memories"):
        tool.call({"command": "create", "path": "/etc/cron.d/x", "file_text": "x"})
    assert memory.documents.all(T) == []


def test_the_async_adapter_runs_the_same_commands(memory: Memory) -> None:
    import anyio

    tool = SgamAsyncMemoryTool(memory, T)

    async def go() -> Any:
        await tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a\n"})
        return await tool.call({"command": "view", "path": "/memories/a.md"})

    assert anyio.run(go) == "Here's the content of /memories/a.md with line numbers:\n     1\ta\n     2\t"
