"""``sgam threads``: where a run stopped, what it waits for, prune and forget, as JSON
and exit statuses, on each backend."""

from __future__ import annotations

import json
import re

from langgraph.checkpoint.base import empty_checkpoint
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.langgraph import SgamSaver

from ..langgraph.approval_graph import QUESTION, run_until_asked

runner = CliRunner()


def sgam(db: str, *args: str) -> tuple[int, object]:
    result = runner.invoke(app, [*args, "--db", db, "--json"])
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.stdout


def _interrupted_thread(url: str) -> str:
    with Memory(url) as memory:
        saver = SgamSaver(memory, tenant="acme")
        config = {"configurable": {"thread_id": "report-1"}, "metadata": {"subjects": ["mira"]}}
        stored = None
        for step in range(3):
            checkpoint = empty_checkpoint()
            checkpoint["channel_values"] = {"draft": f"version {step}"}
            if stored is not None:
                config["configurable"]["checkpoint_id"] = stored["configurable"]["checkpoint_id"]
            stored = saver.put(config, checkpoint, {"step": step, "source": "loop"}, {})  # type: ignore[arg-type]
        saver.put_writes(stored, [("__interrupt__", "approve the report?")], "task-1")  # type: ignore[arg-type]
    return "report-1"


def test_list_show_prune_forget(store_url: str) -> None:
    thread = _interrupted_thread(store_url)
    code, listed = sgam(store_url, "threads", "list", "-t", "acme")
    assert code == 0 and isinstance(listed, list)
    assert [(t["thread_id"], t["checkpoints"]) for t in listed] == [(thread, 3)]
    code, shown = sgam(store_url, "threads", "show", "-t", "acme", thread)
    assert code == 0 and isinstance(shown, dict)
    assert shown["subjects"] == ["mira"]
    assert [c["step"] for c in shown["checkpoints"]] == [2, 1, 0]
    assert shown["checkpoints"][0]["waiting_for"] == ["approve the report?"]
    assert sgam(store_url, "threads", "list", "-t", "globex")[1] == []
    assert sgam(store_url, "threads", "show", "-t", "globex", thread)[0] == 4
    code, pruned = sgam(store_url, "threads", "prune", "-t", "acme", thread)
    assert code == 0 and isinstance(pruned, list) and pruned[0]["checkpoints"] == 1
    code, shown = sgam(store_url, "threads", "show", "-t", "acme", thread)
    assert shown["checkpoints"][0]["waiting_for"] == ["approve the report?"]  # type: ignore[index]
    assert sgam(store_url, "threads", "prune", "-t", "acme", "no-such-thread")[0] == 4
    assert sgam(store_url, "threads", "forget", "-t", "acme", thread)[0] == 0
    assert sgam(store_url, "threads", "list", "-t", "acme")[1] == []
    assert sgam(store_url, "threads", "forget", "-t", "acme", thread)[0] == 4


def test_show_lists_the_actions_the_thread_began_and_finished(store_url: str) -> None:
    thread = _interrupted_thread(store_url)
    with Memory(store_url) as memory:
        memory.once("acme", "publish:report-1", {"draft": 2}, lambda key: "receipt-9", thread_id=thread)
        memory.once("acme", "unrelated", {}, lambda key: None)
    code, shown = sgam(store_url, "threads", "show", "-t", "acme", thread)
    assert code == 0 and isinstance(shown, dict)
    assert [(a["action_key"], a["status"], a["attempts"]) for a in shown["actions"]] == [
        ("publish:report-1", "done", 1)]
    assert shown["actions"][0]["finished_at"] is not None
    table = runner.invoke(app, ["threads", "show", "-t", "acme", thread, "--db", store_url])
    assert table.exit_code == 0 and "publish:report-1" in table.stdout and "unrelated" not in table.stdout


def test_purge_applies_checkpoint_retention(store_url: str) -> None:
    """Threads stored a year ago in classes with a day's ttl: ``sgam purge`` erases the one
    its class erases and prunes the other to its newest checkpoint."""
    from datetime import UTC, datetime

    with Memory(store_url, clock=lambda: datetime(2025, 1, 1, tzinfo=UTC)) as memory:
        memory.retention("acme", "runs", "P1D")
        memory.retention("acme", "drafts", "P1D", on_expiry="keep_facts")
        for thread, retention in (("gone", "runs"), ("kept", "drafts")):
            saver = SgamSaver(memory, tenant="acme", retention=retention)
            config: dict[str, object] = {"configurable": {"thread_id": thread}}
            for step in range(2):
                config = saver.put(config, empty_checkpoint(), {"step": step}, {})  # type: ignore[arg-type,assignment]
    code, result = sgam(store_url, "purge")
    assert code == 0 and isinstance(result, dict)
    assert (result["threads_erased"], result["threads_pruned"]) == (1, 1)
    listed = sgam(store_url, "threads", "list", "-t", "acme")[1]
    assert [(t["thread_id"], t["checkpoints"]) for t in listed] == [("kept", 1)]  # type: ignore[union-attr,index]
    again = runner.invoke(app, ["purge", "--db", store_url])
    assert again.exit_code == 0 and "0 checkpoint threads" in again.stdout and "0 threads pruned" in again.stdout


def test_show_a_real_run_stopped_at_an_interrupt(store_url: str) -> None:
    """A LangGraph run stopped at ``interrupt()``: the value it waits for is shown as the
    JSON every other surface answers, never as a Python repr of LangGraph's records."""
    with Memory(store_url) as memory:
        run_until_asked(memory)
    code, shown = sgam(store_url, "threads", "show", "-t", "acme", "report-1")
    assert code == 0 and isinstance(shown, dict)
    assert (shown["status"], shown["next"]) == ("waiting", ["ask"])
    assert shown["checkpoints"][0]["waiting_for"] == [QUESTION]
    printed = runner.invoke(app, ["threads", "show", "-t", "acme", "report-1", "--db", store_url],
                            env={"COLUMNS": "400"})
    assert printed.exit_code == 0, printed.output
    assert "report-1 · waiting (next: ask)" in printed.output
    assert '{"question": "approve the report?"' in printed.output
    assert "Interrupt(" not in printed.output and "{'question'" not in printed.output
    listed = runner.invoke(app, ["threads", "list", "-t", "acme", "--db", store_url], env={"COLUMNS": "200"})
    assert re.search(r"report-1 .* \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", listed.output)
    assert "." not in listed.output.split("report-1")[1].split("\n")[0]  # to the second, no fraction
