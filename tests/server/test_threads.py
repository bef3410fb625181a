"""Checkpoint memory over HTTP and MCP: where a run stopped and what it waits for, by
tenant; pruning and erasure need an admin key."""

from __future__ import annotations

import anyio
import httpx2
from langgraph.checkpoint.base import empty_checkpoint
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sgam.langgraph import SgamSaver

from ..langgraph.approval_graph import QUESTION, answer, run_until_asked
from .conftest import Served


def _interrupted(served: Served) -> None:
    run_until_asked(served.memory, thread_id="report-1", subject="Mira")


WAITING_FOR = [{**QUESTION, "draft": "Q3 report for Mira <b>draft</b>"}]
"""What a real run stopped at ``interrupt(value)`` waits for: the value itself, as JSON."""


def test_http_threads(served: Served) -> None:
    _interrupted(served)
    with served.client("acme", "read") as read:
        listed = read.get("/v1/threads")
        assert listed.status_code == 200
        assert [(t["thread_id"], t["checkpoints"]) for t in listed.json()] == [("report-1", 3)]
        shown = read.get("/v1/threads/report-1").json()
        assert shown["checkpoints"][0]["waiting_for"] == WAITING_FOR
        assert (shown["status"], shown["next"], shown["subjects"]) == ("waiting", ["ask"], ["mira"])
        assert shown["values"] == {"topic": "Mira", "draft": "Q3 report for Mira <b>draft</b>", "approved": False}
        assert all(c["at"] and c["at"].endswith("Z") for c in shown["checkpoints"])
        assert read.post("/v1/threads/report-1/prune").status_code == 403
        assert read.delete("/v1/threads/report-1").status_code == 403
    with served.client("globex", "admin") as other:
        assert other.get("/v1/threads").json() == []
        assert other.get("/v1/threads/report-1").status_code == 404
        assert other.delete("/v1/threads/report-1").status_code == 404
    with served.client("acme", "admin") as admin:
        answer(served.memory, True)
        finished = admin.get("/v1/threads/report-1").json()
        assert (finished["status"], finished["next"], finished["values"]["approved"]) == ("finished", [], True)
        assert finished["checkpoints"][0]["waiting_for"] == []
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
                    with served.client(tenant, "read") as read:  # one encoding: MCP answers what HTTP does
                        assert shown.structured_content == read.get("/v1/threads/report-1").json()
                    assert shown.structured_content["checkpoints"][0]["waiting_for"] == WAITING_FOR
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


def test_the_thread_page_of_a_real_run_stopped_at_an_interrupt(served: Served) -> None:
    """A LangGraph run stopped at ``interrupt()``: the page says it waits and for what,
    shows the state's values and when each checkpoint was taken, and links its subject;
    once answered, the run is finished."""
    import httpx

    from .conftest import post_sign_in

    run_until_asked(served.memory, thread_id="report-1", subject="Mira")
    with httpx.Client(base_url=served.url, timeout=30) as browser:
        assert post_sign_in(browser, served.keys[("acme", "read")]).status_code == 303
        page = browser.get("/ui/threads/report-1")
        assert page.status_code == 200, page.text
        assert "<strong>Waiting</strong>" in page.text and "next: ask" in page.text
        assert "&#34;question&#34;: &#34;approve the report?&#34;" in page.text  # the value, as JSON
        assert "&lt;b&gt;draft&lt;/b&gt;" in page.text and "<b>draft</b>" not in page.text
        assert 'id="values"' in page.text and "&#34;Mira&#34;" in page.text
        assert '<a href="/ui/subjects/mira">mira</a>' in page.text
        taken = served.memory.clock().strftime("%Y-%m-%d")
        assert page.text.count(f'<td data-label="taken">{taken} ') == 3  # each checkpoint's time, to the second
        listing = browser.get("/ui/threads").text
        assert f'<td data-label="first">{taken} ' in listing and "+00:00" not in listing
        answer(served.memory, True)
        page = browser.get("/ui/threads/report-1")
        assert "<strong>Finished</strong>" in page.text and "Waiting for" not in page.text
