"""The action ledger on both backends: at most one call per tenant and key, the
recorded result on retry, conflicts for a reused key, and in-doubt intents that are
reconciled or refused rather than repeated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sgam import ActionInDoubt, ConflictError, Memory, Reconciled, ValidationError
from sgam.cli import app


class Destination:
    """Counts the calls it receives and the keys they carried."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, key: str) -> dict[str, Any]:
        self.keys.append(key)
        return {"receipt": f"r-{len(self.keys)}"}


class Crash(Exception):
    """Stands for the process dying after the destination accepted the call."""


def test_once_calls_once_and_retries_return_the_record(memory: Memory) -> None:
    dest = Destination()
    request = {"report": "q3", "to": "board"}
    assert memory.once("acme", "publish:q3", request, dest) == {"receipt": "r-1"}
    assert memory.once("acme", "publish:q3", request, dest) == {"receipt": "r-1"}
    assert dest.keys == ["publish:q3"]  # the key reaches the destination (its Idempotency-Key)
    [action] = memory.actions("acme")
    assert (action.key, action.status, action.result, action.attempts) == ("publish:q3", "done", {"receipt": "r-1"}, 1)
    assert action.request == request and action.finished_at is not None


def test_a_key_reused_for_another_request_is_a_conflict(memory: Memory) -> None:
    dest = Destination()
    memory.once("acme", "k", {"amount": 10}, dest)
    with pytest.raises(ConflictError):
        memory.once("acme", "k", {"amount": 11}, dest)
    assert dest.keys == ["k"]
    assert memory.once("acme", "k", {"amount": 10.0}, dest) == {"receipt": "r-1"}  # equal as JSON


def test_an_interrupted_call_is_in_doubt_not_repeated(memory: Memory) -> None:
    dest = Destination()

    def accepted_then_crashed(key: str) -> None:
        dest(key)
        raise Crash("connection lost after sending")

    with pytest.raises(Crash):
        memory.once("acme", "pay:1", {"amount": 5}, accepted_then_crashed)
    [action] = memory.actions("acme", status="in_doubt")
    assert action.error == "Crash: connection lost after sending"
    with pytest.raises(ActionInDoubt) as caught:
        memory.once("acme", "pay:1", {"amount": 5}, dest)
    assert caught.value.kind == "action_in_doubt" and isinstance(caught.value, ConflictError)
    assert dest.keys == ["pay:1"]
    with pytest.raises(ActionInDoubt):  # a destination that cannot tell leaves it in doubt
        memory.once("acme", "pay:1", {"amount": 5}, dest, reconcile=lambda key: None)
    result = memory.once("acme", "pay:1", {"amount": 5}, dest,
                         reconcile=lambda key: Reconciled(True, {"receipt": "found at destination"}))
    assert result == {"receipt": "found at destination"} and dest.keys == ["pay:1"]
    assert memory.actions("acme", status="in_doubt") == []
    assert memory.once("acme", "pay:1", {"amount": 5}, dest) == {"receipt": "found at destination"}


def test_reconcile_that_finds_nothing_calls_again(memory: Memory) -> None:
    dest = Destination()

    def refused(key: str) -> None:
        raise ConnectionRefusedError("nothing listening")

    with pytest.raises(ConnectionRefusedError):
        memory.once("acme", "msg:1", {"text": "hi"}, refused)
    assert memory.once("acme", "msg:1", {"text": "hi"}, dest, reconcile=lambda key: Reconciled(False)) == {
        "receipt": "r-1"}
    [action] = memory.actions("acme")
    assert action.status == "done" and action.attempts == 2


def test_actions_are_tenant_scoped(memory: Memory) -> None:
    dest = Destination()
    memory.once("acme", "k", {"x": 1}, dest)
    memory.once("other", "k", {"x": 2}, dest)
    assert len(dest.keys) == 2
    assert [a.request for a in memory.actions("other")] == [{"x": 2}]


def test_bad_input_records_nothing(memory: Memory) -> None:
    dest = Destination()
    for key, request, call in [("", {}, dest), ("k", {"x": float("nan")}, dest), ("k", {"x": object()}, dest),
                               ("k", {}, "not callable")]:
        with pytest.raises(ValidationError):
            memory.once("acme", key, request, call)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        memory.once("bad tenant", "k", {}, dest)
    with pytest.raises(ValidationError):
        memory.actions("acme", status="pending")
    assert memory.actions("acme") == [] and dest.keys == []


def test_a_result_that_is_not_json_is_done_without_it(memory: Memory) -> None:
    marker = object()
    assert memory.once("acme", "k", {}, lambda key: marker) is marker
    [action] = memory.actions("acme")
    assert action.status == "done" and action.result is None and action.error is not None
    assert memory.once("acme", "k", {}, lambda key: marker) is None


def test_cli_lists_actions_in_doubt(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    with Memory(url) as memory:
        memory.once("acme", "done-1", {"n": 1}, lambda key: {"ok": True})
        with pytest.raises(Crash):
            memory.once("acme", "doubt-1", {"n": 2}, lambda key: (_ for _ in ()).throw(Crash("killed")))
    runner = CliRunner()
    result = runner.invoke(app, ["actions", "-t", "acme", "--status", "in_doubt", "--db", url, "--json"])
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert [(a["key"], a["status"]) for a in payload] == [("doubt-1", "in_doubt")]
    result = runner.invoke(app, ["actions", "-t", "acme", "--db", url])
    assert result.exit_code == 0 and "doubt-1" in result.stdout and "done-1" in result.stdout
    result = runner.invoke(app, ["actions", "-t", "acme", "--status", "bogus", "--db", url])
    assert result.exit_code == 3
