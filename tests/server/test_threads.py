"""Checkpoint memory over HTTP and MCP: where a run stopped and what it waits for, by
tenant; pruning and erasure need an admin key."""

from __future__ import annotations

import anyio
import httpx2
from langgraph.checkpoint.base import empty_checkpoint
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sgam.langgraph import SgamSaver

from .conftest import Served


def _interrupted(served: Served) -> None:
    saver = SgamSaver(served.memory, tenant="acme")
    stored = None
    for step in range(2):
        checkpoint = empty_checkpoint()
        config = {"configurable": {"thread_id": "report-1"}}
        if stored is not None:
            config["configurable"]["checkpoint_id"] = stored["configurable"]["checkpoint_id"]
        stored = saver.put(config, checkpoint, {"step": step, "source": "loop"}, {})  # type: ignore[arg-type]
    saver.put_writes(stored, [("__interrupt__", "approve the report?")], "task-1")  # type: ignore[arg-type]


def test_http_threads(served: Served) -> None:
    _interrupted(served)
    with served.client("acme", "read") as read:
        listed = read.get("/v1/threads")
        assert listed.status_code == 200
        assert [(t["thread_id"], t["checkpoints"]) for t in listed.json()] == [("report-1", 2)]
        shown = read.get("/v1/threads/report-1").json()
        assert shown["checkpoints"][0]["waiting_for"] == ["approve the report?"]
        assert read.post("/v1/threads/report-1/prune").status_code == 403
        assert read.delete("/v1/threads/report-1").status_code == 403
    with served.client("globex", "admin") as other:
        assert other.get("/v1/threads").json() == []
        assert other.get("/v1/threads/report-1").status_code == 404
        assert other.delete("/v1/threads/report-1").status_code == 404
    with served.client("acme", "admin") as admin:
        pruned = admin.post("/v1/threads/report-1/prune")
        assert pruned.status_code == 200 and pruned.json()["checkpoints"] == 1
        assert admin.delete("/v1/threads/report-1").status_code == 200
        assert admin.get("/v1/threads/report-1").status_code == 404
        assert admin.delete("/v1/threads/report-1").status_code == 404


def test_mcp_tools_show_where_a_run_waits(served: Served) -> None:
    _interrupted(served)

    async def scenario() -> None:
        for tenant, expected in (("acme", ["report-1"]), ("globex", [])):
            headers = {"Authorization": f"Bearer {served.keys[(tenant, 'read')]}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
                    Client(streamable_http_client(f"{served.url}/mcp", http_client=http)) as client:
                listed = await client.call_tool("list_threads", {})
                assert listed.structured_content is not None
                assert [t["thread_id"] for t in listed.structured_content["threads"]] == expected
                shown = await client.call_tool("show_thread", {"thread_id": "report-1"})
                if expected:
                    assert shown.structured_content is not None
                    assert shown.structured_content["thread"]["checkpoints"][0]["waiting_for"] == [
                        "approve the report?"]
                else:
                    assert shown.is_error

    anyio.run(scenario)


def test_inspector_shows_where_a_run_waits_and_only_to_its_tenant(served: Served) -> None:
    import httpx

    from .conftest import post_sign_in

    saver = SgamSaver(served.memory, tenant="acme")
    checkpoint = empty_checkpoint()
    stored = saver.put({"configurable": {"thread_id": "report-<1>"}}, checkpoint,  # type: ignore[arg-type]
                       {"step": 0, "source": "input"}, {})
    saver.put_writes(stored, [("__interrupt__", "approve? <script>alert(1)</script>")], "task-1")  # type: ignore[arg-type]
    for tenant, found in (("acme", True), ("globex", False)):
        with httpx.Client(base_url=served.url, timeout=30) as browser:
            assert post_sign_in(browser, served.keys[(tenant, "read")]).status_code == 303
            listing = browser.get("/ui/threads")
            assert listing.status_code == 200 and ('href="/ui/threads/report-%3C1%3E"' in listing.text) is found
            page = browser.get("/ui/threads/report-%3C1%3E")
            if found:
                assert page.status_code == 200 and "Waiting for" in page.text
                assert "approve?" in page.text and "<script>alert" not in page.text  # quoted as data
                assert 'href="/ui/threads"' in browser.get("/ui/").text
            else:
                assert page.status_code == 404 and "approve?" not in page.text and "checkpoint" not in page.text


def test_the_thread_page_shows_the_actions_its_run_began_and_finished(served: Served) -> None:
    import httpx

    from .conftest import post_sign_in

    saver = SgamSaver(served.memory, tenant="acme")
    saver.put({"configurable": {"thread_id": "report-2"}}, empty_checkpoint(),  # type: ignore[arg-type]
              {"step": 0, "source": "input"}, {})
    served.memory.once("acme", "publish:<report-2>", {}, lambda key: "receipt", thread_id="report-2")
    with httpx.Client(base_url=served.url, timeout=30) as browser:
        assert post_sign_in(browser, served.keys[("acme", "read")]).status_code == 303
        page = browser.get("/ui/threads/report-2")
        assert page.status_code == 200 and "Actions the run began and finished" in page.text
        assert "publish:&lt;report-2&gt;" in page.text and "<report-2>" not in page.text
    with served.client("acme", "read") as read:
        shown = read.get("/v1/threads/report-2").json()
        assert [(a["action_key"], a["status"]) for a in shown["actions"]] == [("publish:<report-2>", "done")]
