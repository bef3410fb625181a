"""A revocation holds on the reads that show stored values beside the usual ones: the
values retypes set aside, the bitemporal record of a relation's key, and what a
checkpoint thread's run waits for; through the library and the CLI (HTTP and the
inspector: ``tests/server/test_revoked_reads.py``)."""

from __future__ import annotations

import json

from langgraph.checkpoint.base import empty_checkpoint
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.langgraph import SgamSaver
from sgam.langgraph.threads import show_thread

T1 = "2026-01-01T00:00:00Z"
SECRET = "Approve the raise for OLA?"


def _seed(memory: Memory, t: str = "t") -> None:
    memory.add_episode(t, "e1", T1, "Ola's budget is lots; Mira's manager was Ola, then Kim.")
    memory.declare(t, "budget", "string")
    memory.write(t, "ola", "budget", "lots", T1, "e1")
    memory.write(t, "kim", "budget", "100", T1, "e1")
    memory.retype(t, "budget", "integer", quarantine=True)
    memory.declare(t, "manager", "subject")
    memory.write(t, "mira", "manager", "Ola", T1, "e1")
    memory.write(t, "mira", "manager", "Kim", "2026-02-01T00:00:00Z", "e1")
    saver = SgamSaver(memory, tenant=t)
    stored = saver.put({"configurable": {"thread_id": "run-1"}}, empty_checkpoint(),  # type: ignore[arg-type]
                       {"step": 0, "source": "loop"}, {})
    saver.put_writes(stored, [("__interrupt__", {"ask": SECRET})], "task-1")
    saver.put_writes(stored, [("__interrupt__", "approve the report?")], "task-2")


def _shown(memory: Memory) -> tuple[list[str], list[str], list[object]]:
    return ([q.subject for q in memory.quarantined("t")],
            [str(a.value) for a in memory.versions("t", "mira", "manager")],
            show_thread(memory, "t", "run-1").checkpoints[0].waiting_for)


def test_a_revoked_subject_is_left_out_of_the_quarantine_versions_and_thread_view(store_url: str) -> None:
    with Memory(store_url) as memory:
        _seed(memory)
        assert _shown(memory) == (["ola"], ["ola", "kim"], [{"ask": "Approve the raise for OLA?"},
                                                           "approve the report?"])
        memory.consent("t", "ola", False)
        assert _shown(memory) == ([], ["kim"], ["approve the report?"])
        assert show_thread(memory, "t", "run-1").checkpoints[0].pending_writes == ["__interrupt__", "__interrupt__"]
        memory.consent("t", "ola", True)
        memory.consent("t", "ola", False, purpose="ads")  # a purpose revocation: the view shows no purpose
        assert _shown(memory)[2] == ["approve the report?"]


def _cli(db: str, *args: str) -> object:
    result = CliRunner().invoke(app, [*args, "--tenant", "t", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_cli_leaves_a_revoked_subject_out(store_url: str) -> None:
    with Memory(store_url) as memory:
        _seed(memory)
        memory.consent("t", "ola", False)
    assert _cli(store_url, "schema", "quarantine") == []
    assert [v["value"] for v in _cli(store_url, "versions", "mira", "manager")] == ["kim"]  # type: ignore[union-attr]
    shown = _cli(store_url, "threads", "show", "run-1")
    assert shown["checkpoints"][0]["waiting_for"] == ["approve the report?"]  # type: ignore[index]
    assert "lots" not in json.dumps(_cli(store_url, "schema", "quarantine"))


def test_a_revocation_under_any_name_holds_on_the_thread_view(store_url: str) -> None:
    """``bob`` is another name of ``robert``: a revocation stated under either name hides
    interrupt values and state values naming the subject by the other."""
    for revoked_name, tenant in (("bob", "t1"), ("robert", "t2")):
        with Memory(store_url) as memory:
            saver = SgamSaver(memory, tenant=tenant)
            checkpoint = empty_checkpoint()
            checkpoint["channel_values"] = {"draft": "a raise for Robert", "topic": "budgets"}
            stored = saver.put({"configurable": {"thread_id": "run-1"}}, checkpoint,  # type: ignore[arg-type]
                               {"step": 0, "source": "loop", "subjects": ["robert", "ana"]}, {})
            saver.put_writes(stored, [("__interrupt__", {"ask": "Approve the raise for Robert?"})], "task-1")
            saver.put_writes(stored, [("__interrupt__", {"ask": "Approve the raise for Bob?"})], "task-2")
            saver.put_writes(stored, [("__interrupt__", "approve the report?")], "task-3")
            memory.alias(tenant, "bob", "robert")
            memory.consent(tenant, revoked_name, False)
            shown = show_thread(memory, tenant, "run-1")
            assert shown.checkpoints[0].waiting_for == ["approve the report?"], revoked_name
            assert shown.values == {"topic": "budgets"}, revoked_name
            assert shown.subjects == ["ana"], revoked_name
