"""The publish-once example, killed at the worst moment: after the service accepted the
report, before the ledger recorded the outcome and before LangGraph saved the
checkpoint. A new process resumes from the checkpoint and the service has still
received the report exactly once; a service that keeps no idempotency keys ends in
``ActionInDoubt`` instead of a second publication."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sgam import Memory

from ..conftest import Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "publish_once"


@contextmanager
def service(tmp_path: Path, *, honour_keys: bool) -> Iterator[tuple[str, Path]]:
    log = tmp_path / "published.jsonl"
    log.touch()
    args = [sys.executable, str(EXAMPLE / "service.py"), "--log", str(log), "--hold-first", "120"]
    proc = subprocess.Popen(args + (["--honour-keys"] if honour_keys else []), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield f"http://127.0.0.1:{proc.stdout.readline().strip()}", log
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def published(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


class Runner:
    def __init__(self, db: str, checkpoints: str, service_url: str) -> None:
        self.thread = f"t-{uuid.uuid4().hex[:8]}"  # checkpoints on PostgreSQL outlive a test
        self.key = f"publish:{self.thread}"
        self.common = ["--thread", self.thread, "--topic", "Q3 report", "--db", db, "--checkpoints", checkpoints,
                       "--service", service_url]

    def args(self, step: str) -> list[str]:
        return [sys.executable, str(EXAMPLE / "run.py"), step, *self.common]

    def step(self, step: str) -> tuple[int, dict[str, Any] | None, str]:
        done = subprocess.run(self.args(step), capture_output=True, text=True, timeout=300)
        payload = json.loads(done.stdout) if done.returncode == 0 else None
        return done.returncode, payload, done.stderr


@pytest.fixture(params=["sgam", "langgraph"])
def stores(store: Store, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, str]:
    """(sgam URL, checkpointer location): sgam's own saver in the same database; or
    LangGraph's, in a SQLite file beside the store, or on PostgreSQL as the owner, which
    may create LangGraph's checkpoint tables."""
    if request.param == "sgam":
        return store.url, "sgam"
    if store.backend == "sqlite":
        return store.url, str(tmp_path / "checkpoints.sqlite")
    return store.url, store.admin


def _kill_after_the_service_accepted(runner: Runner, log: Path) -> None:
    proc = subprocess.Popen(runner.args("resume"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not published(log):
        assert proc.poll() is None, "the run ended before publishing"
        assert time.monotonic() < deadline, "the service never received the report"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # the service holds its response: nothing after the POST has run
    assert proc.wait() == -signal.SIGKILL


def _prepare(runner: Runner) -> None:
    code, state, err = runner.step("start")
    assert code == 0, err
    assert state is not None and state["next"] == ["publish"] and "revenue" in state["values"]["report"]
    code, state, err = runner.step("approve")
    assert code == 0 and state is not None and state["values"]["approved"] is True, err


def test_killed_after_publishing_resumes_exactly_once(tmp_path: Path, stores: tuple[str, str]) -> None:
    db, checkpoints = stores
    with service(tmp_path, honour_keys=True) as (url, log):
        runner = Runner(db, checkpoints, url)
        _prepare(runner)
        _kill_after_the_service_accepted(runner, log)
        code, state, _ = runner.step("state")
        assert state is not None and state["next"] == ["publish"]  # the checkpoint never got past publish
        with Memory(db) as memory:
            assert [a.key for a in memory.actions("acme", status="in_doubt")] == [runner.key]
        code, state, err = runner.step("resume")
        assert code == 0, err
        [publication] = published(log)
        assert publication["key"] == runner.key
        assert state is not None and state["next"] == []
        assert state["values"]["receipt"]["receipt"] == publication["receipt"]
        code, state, err = runner.step("resume")  # resuming a finished thread publishes nothing either
        assert code == 0 and len(published(log)) == 1, err
        with Memory(db) as memory:
            [action] = memory.actions("acme")
            assert action.status == "done" and action.result["receipt"] == publication["receipt"]


def test_a_service_without_idempotency_keys_ends_in_doubt(tmp_path: Path, stores: tuple[str, str]) -> None:
    db, checkpoints = stores
    with service(tmp_path, honour_keys=False) as (url, log):
        runner = Runner(db, checkpoints, url)
        _prepare(runner)
        _kill_after_the_service_accepted(runner, log)
        for _ in range(2):
            code, _, err = runner.step("resume")
            assert code == 5 and "in doubt" in err
        assert len(published(log)) == 1
        with Memory(db) as memory:
            assert [a.key for a in memory.actions("acme", status="in_doubt")] == [runner.key]
