"""Backfills over HTTP: a retype or rename with a backfill answers 202 once the step is
recorded and the server converts in a worker; an unfinished backfill is resumed by a
route, and a second resume while a worker runs it starts no other."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sgam import AsyncMemory, Backfill, Memory

from .conftest import Served, serve

T0 = "2026-01-01T00:00:00Z"
SUBJECTS = ("p1", "p2", "p3", "p4", "p5")


@pytest.fixture
def batched(store_url: str) -> Iterator[Served]:
    """A server whose backfills convert one subject per batch."""
    with Memory(store_url) as memory, serve(memory, backfill_batch=1) as running:
        yield running


def _fill(c: httpx.Client) -> None:
    assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "budgets"}).status_code == 201
    for subject in SUBJECTS:
        assert c.post("/v1/facts", json={"subject": subject, "attribute": "budget", "value": "12",
                                         "valid_from": T0, "source": "e1"}).status_code == 201


def _finished(c: httpx.Client, url: str) -> dict[str, Any]:
    """The backfill at ``url`` once its worker has ended (polled; a bound, not a timing)."""
    deadline = time.monotonic() + 60
    while True:
        found: dict[str, Any] = c.get(url).json()
        if found["backfill"]["finished_at"] is not None and not found["running"]:
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.05)


def test_a_retype_with_a_backfill_is_accepted_and_converted_by_the_server(batched: Served) -> None:
    with batched.client("acme", "admin") as c:
        _fill(c)
        accepted = c.post("/v1/schema/retype", json={"attribute": "budget", "value_type": "integer",
                                                     "backfill": True})
        assert accepted.status_code == 202, accepted.text
        body = accepted.json()
        step = body["change"]["seq"]
        assert body["change"]["kind"] == "retype" and body["backfill"]["step"] == step
        assert body["status"] == accepted.headers["Location"] == f"/v1/schema/backfills/{step}"
        assert body["backfill"]["finished_at"] is None
        assert c.get("/v1/facts/p5/budget").json()["value"] == 12  # converted, on the fly or by now
        done = _finished(c, body["status"])["backfill"]
        assert (done["subjects_done"], done["subjects_total"], done["after_subject"]) == (5, 5, "p5")
        assert [b["finished_at"] is not None for b in c.get("/v1/schema/backfills").json()] == [True]
        renamed = c.post("/v1/schema/rename", json={"attribute": "budget", "to": "spend", "backfill": True})
        assert renamed.status_code == 202
        _finished(c, renamed.json()["status"])
        assert c.get("/v1/facts/p3/spend").json()["value"] == 12
        small = c.post("/v1/schema/retype", json={"attribute": "spend", "value_type": "number", "backfill": False})
        assert small.status_code == 201 and small.json()["kind"] == "retype"  # converted in its transaction


def _held_until(release: threading.Event, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker's batches wait for ``release`` (outside any lock or transaction, so the
    server goes on answering): a worker surely runs until then."""
    run = AsyncMemory.run_backfill

    async def held(self: AsyncMemory, *args: Any, **kwargs: Any) -> list[Backfill]:
        await asyncio.to_thread(release.wait, 30)
        return await run(self, *args, **kwargs)

    monkeypatch.setattr(AsyncMemory, "run_backfill", held)


def test_an_unfinished_backfill_is_resumed_once_over_http(batched: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    with batched.client("acme", "admin") as c:
        _fill(c)
    batched.memory.retype("acme", "budget", "integer", backfill=True, wait=False)
    batched.memory.run_backfill("acme", batch=2, max_batches=1)
    [pending] = batched.memory.backfills("acme")
    url = f"/v1/schema/backfills/{pending.step}"
    with batched.client("acme", "read") as c:
        stopped = c.get(url).json()
        assert (stopped["running"], stopped["backfill"]["subjects_done"]) == (False, 2)
        assert c.post(f"{url}/run").status_code == 403
    release = threading.Event()
    _held_until(release, monkeypatch)
    try:
        with batched.client("acme", "admin") as c:
            first = c.post(f"{url}/run")
            assert first.status_code == 202 and first.headers["Location"] == url
            assert (first.json()["started"], first.json()["running"]) == (True, True)
            second = c.post(f"{url}/run")
            assert second.status_code == 202
            assert (second.json()["started"], second.json()["running"]) == (False, True)
    finally:
        release.set()
    with batched.client("acme", "admin") as c:
        done = _finished(c, url)["backfill"]
        # resumed after the first two subjects: three more batches of one, none redone
        assert (done["subjects_done"], done["batches_done"], done["after_subject"]) == (5, 4, "p5")
        again = c.post(f"{url}/run")
        assert again.status_code == 200 and (again.json()["started"], again.json()["running"]) == (False, False)
        assert c.get("/v1/facts/p5/budget").json()["value"] == 12


def test_a_step_without_a_backfill_is_not_found(batched: Served) -> None:
    with batched.client("acme", "admin") as c:
        _fill(c)
        assert c.post("/v1/schema/retype", json={"attribute": "budget", "value_type": "integer"}).status_code == 201
        for method, path in (("GET", "/v1/schema/backfills/1"), ("POST", "/v1/schema/backfills/1/run"),
                             ("POST", "/v1/schema/backfills/99/run")):
            missing = c.request(method, path)
            assert missing.status_code == 404 and missing.json()["field"] == "step", missing.text
        assert c.get("/v1/schema/backfills/0").status_code == 422
        assert c.get("/v1/schema/backfills/x").status_code == 422


def test_a_restarted_server_resumes_a_tenant_s_backfills_on_its_first_request(store_url: str) -> None:
    """A server stopped in the middle of a backfill: the next one resumes it when the
    tenant first asks anything (any scope), unless told not to; another tenant's requests
    leave it alone."""
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", T0, "budgets")
        for subject in SUBJECTS:
            memory.write("acme", subject, "budget", "12", T0, "e1")
        memory.retype("acme", "budget", "integer", backfill=True, wait=False)
        memory.run_backfill("acme", batch=2, max_batches=1)  # what the stopped server had done
        [pending] = memory.backfills("acme")
        url = f"/v1/schema/backfills/{pending.step}"
        with serve(memory, backfill_batch=1, resume_backfills=False) as kept, kept.client("acme", "read") as c:
            found = c.get(url).json()
            assert (found["running"], found["backfill"]["subjects_done"]) == (False, 2)
        with serve(memory, backfill_batch=1) as resuming:
            with resuming.client("globex", "read") as c:
                assert c.get("/v1/schema/backfills").json() == []
            assert memory.backfill("acme", pending.step).subjects_done == 2
            with resuming.client("acme", "read") as c:
                assert c.get("/v1/facts/p5/budget").json()["value"] == 12
                done = _finished(c, url)["backfill"]
                assert (done["subjects_done"], done["batches_done"], done["after_subject"]) == (5, 4, "p5")
