"""The background worker: queue in the store, leases, at-least-once without duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from sgam import Memory, ValidationError
from sgam.extraction import ClientSettings, ExtractionPolicy, ModelError, OpenAIClient, ScriptedClient, Worker

from .conftest import ModelServer, Scripted, completion, episode_in_prompt

EPISODES = 6


def colour_reply(body: dict[str, Any]) -> Scripted:
    """A model that reads the episode block and proposes one well-formed update."""
    episode = episode_in_prompt(body)
    subject, _, colour = episode["text"].rstrip(".").split(" ")
    update = {
        "evidence": episode["text"],
        "subject": subject,
        "attribute": "colour",
        "current_value": None,
        "change": "new",
        "value": colour,
        "valid_from": None,
        "confidence": 0.9,
        "stated": True,
    }
    return Scripted(200, completion(__import__("json").dumps({"updates": [update]})), delay=0.25)


def queue_episodes(memory: Memory, count: int = EPISODES) -> None:
    for n in range(count):
        memory.remember(
            "acme",
            f"e{n}",
            f"2026-06-0{1 + n % 9}T09:00:00Z",
            f"k{n} likes {'blue' if n % 2 else 'red'}.",
            extract=False,
        )


def test_remember_without_extract_queues_in_the_store(memory: Memory) -> None:
    remembered = memory.remember("acme", "e1", "2026-06-01T09:00:00Z", "k1 likes blue.", extract=False)
    assert remembered.queued and remembered.extraction is None
    assert Worker(memory, ScriptedClient()).backlog() == 1
    assert memory.extractions("acme") == []


def test_a_model_failure_on_the_hot_path_queues_the_episode_for_the_worker(memory: Memory) -> None:
    with pytest.raises(ModelError):
        memory.remember("acme", "e1", "2026-06-01T09:00:00Z", "k1 likes blue.", client=ScriptedClient())
    assert memory.episode("acme", "e1") is not None
    assert [x.status for x in memory.extractions("acme")] == ["failed"]
    reply = {"updates": [{"evidence": "k1 likes blue.", "subject": "k1", "attribute": "colour",
                          "change": "new", "value": "blue", "confidence": 0.9}]}
    worker = Worker(memory, ScriptedClient.of([reply]), ExtractionPolicy.off())
    assert worker.backlog() == 1
    assert worker.run().done == 1
    found = memory.get("acme", "k1", "colour", at="2026-06-02T00:00:00Z")
    assert found is not None and found.value == "blue"


def test_an_unusable_reply_on_the_hot_path_is_not_retried(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.remember("acme", "e1", "2026-06-01T09:00:00Z", "k1 likes blue.",
                        client=ScriptedClient.of(["not json"]))
    assert Worker(memory, ScriptedClient()).backlog() == 0


def test_worker_drains_the_queue_and_a_second_run_finds_nothing(memory: Memory) -> None:
    queue_episodes(memory, 3)
    replies = [
        {
            "updates": [
                {
                    "evidence": f"k{n} likes {'blue' if n % 2 else 'red'}.",
                    "subject": f"k{n}",
                    "attribute": "colour",
                    "change": "new",
                    "value": "blue" if n % 2 else "red",
                    "confidence": 0.9,
                }
            ]
        }
        for n in range(3)
    ]
    worker = Worker(memory, ScriptedClient.of(replies), ExtractionPolicy.off(), batch=2)
    stats = worker.run()
    assert (stats.done, stats.failed, worker.backlog()) == (3, 0, 0)
    assert memory.get("acme", "k1", "colour", at="2026-06-03T00:00:00Z").value == "blue"  # type: ignore[union-attr]
    assert worker.run().jobs == 0


def test_a_failing_model_is_retried_then_marked_failed_and_the_episode_kept(memory: Memory) -> None:
    queue_episodes(memory, 1)
    worker = Worker(
        memory, ScriptedClient.of(["not json", "still not json"]), ExtractionPolicy.off(), max_attempts=2
    )
    stats = worker.run()
    assert (stats.jobs, stats.failed, stats.queued, stats.attempts) == (1, 1, 0, 2)
    records = memory.extractions("acme", episode="e0")
    assert [(r.attempt, r.status, r.raw_reply) for r in records] == [
        (2, "failed", "still not json"),
        (1, "failed", "not json"),
    ]
    assert "validation" in (records[0].error or "")
    assert memory.episode("acme", "e0") is not None
    assert memory.backend.run_write("acme", lambda txn: txn.job("e0")).status == "failed"


def test_an_expired_lease_is_taken_over_and_the_late_worker_records_nothing(memory: Memory) -> None:
    queue_episodes(memory, 1)
    reply = {
        "updates": [
            {
                "evidence": "k0 likes red.",
                "subject": "k0",
                "attribute": "colour",
                "change": "new",
                "value": "red",
                "confidence": 0.9,
            }
        ]
    }
    slow = Worker(
        memory, ScriptedClient.of([reply]), ExtractionPolicy.off(), owner="slow", lease_seconds=0.05
    )
    (job,) = memory.backend.claim_jobs("slow", 0, 1, 1, None)  # leased long ago, expired
    fast = Worker(memory, ScriptedClient.of([reply]), ExtractionPolicy.off(), owner="fast")
    assert fast.run().done == 1
    assert slow._one(job, ScriptedClient.of([reply])) == "queued"  # its lease was lost
    assert [r.attempt for r in memory.extractions("acme", episode="e0")] == [1]
    assert len(memory.versions("acme", "k0", "colour")) == 1


def test_forgetting_a_queued_episode_removes_its_job(memory: Memory) -> None:
    queue_episodes(memory, 2)
    memory.forget_episode("acme", "e0")
    assert Worker(memory, ScriptedClient()).backlog() == 1


def test_a_worker_killed_mid_batch_loses_nothing_and_duplicates_nothing(
    store_url: str, model_server: ModelServer
) -> None:
    with Memory(store_url) as memory:
        queue_episodes(memory)
    model_server.responder = colour_reply
    env = {
        **os.environ,
        "SGAM_LLM_BASE_URL": model_server.url,
        "SGAM_LLM_MODEL": "local-test",
        "SGAM_EXTRACTION_MIN_CONFIDENCE": "0",
        "SGAM_EXTRACTION_HOLD_INFERRED": "false",
    }
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from sgam.cli import main; main()",
            "worker",
            "--db",
            store_url,
            "--batch",
            "2",
            "--lease",
            "1",
            "--no-progress",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while len(model_server.requests) < 4 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    _, stderr = child.communicate()
    assert child.returncode == -signal.SIGKILL, stderr
    assert len(model_server.requests) < 2 * EPISODES  # killed mid-backlog, not after it
    time.sleep(1.1)  # the killed worker's lease expires
    settings = ClientSettings(base_url=model_server.url, model="local-test", timeout=5)
    with Memory(store_url) as memory, OpenAIClient(settings) as client:
        done_before = sum(1 for n in range(EPISODES) if memory.extractions("acme", episode=f"e{n}"))
        assert 0 < done_before < EPISODES
        worker = Worker(memory, client, ExtractionPolicy.off(), batch=4)
        worker.run()
        assert worker.backlog() == 0
        for n in range(EPISODES):
            versions = memory.versions("acme", f"k{n}", "colour")
            assert [v.value for v in versions] == ["blue" if n % 2 else "red"], n
            records = memory.extractions("acme", episode=f"e{n}")
            assert [r.status for r in records] == ["ok"], n
            assert memory.backend.run_write("acme", lambda txn, n=n: txn.job(f"e{n}")).status == "done"
