"""Without a working model nothing is lost and everything is said: the episode is kept and
queued, the worker counts jobs (not attempts) and exits non-zero for jobs that failed for
good, and its options are checked before anything is leased."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.extraction import ExtractionPolicy, ModelError, ScriptedClient, Worker

from .conftest import ModelServer, Scripted

AT = "2026-06-01T09:00:00Z"
REPLY = {"updates": [{"evidence": "Mira moved to Oslo.", "subject": "mira", "attribute": "city",
                      "change": "new", "value": "Oslo", "confidence": 0.9}]}


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SGAM_LLM_BASE_URL", "SGAM_LLM_MODEL", "SGAM_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def job(memory: Memory, episode: str) -> Any:
    return memory.backend.run_write("acme", lambda txn: txn.job(episode))


def test_remember_without_a_model_keeps_queues_and_says_so(store_url: str, no_model: None) -> None:
    code, _, err = run("remember", "--db", store_url, "-t", "acme", "e1", "Mira moved to Oslo.", "--at", AT)
    assert code == 7
    assert "episode 'e1' is recorded and queued for extraction: run `sgam worker`" in err
    assert "no model configured: set SGAM_LLM_BASE_URL" in err
    with Memory(store_url) as memory:
        assert memory.episode("acme", "e1") is not None
        assert job(memory, "e1").status == "queued"
        assert [r.status for r in memory.extractions("acme")] == ["failed"]
        stats = Worker(memory, ScriptedClient.of([REPLY]), ExtractionPolicy.off()).run()
        assert (stats.jobs, stats.done) == (1, 1)
        found = memory.get("acme", "mira", "city", at="2026-06-02T00:00:00Z")
        assert found is not None and found.value == "Oslo"


def test_the_library_says_the_same_and_queues_the_same(memory: Memory) -> None:
    with pytest.raises(ModelError) as caught:
        memory.remember("acme", "e1", AT, "Mira moved to Oslo.", client=ScriptedClient())
    assert "recorded and queued" in caught.value.message
    assert job(memory, "e1").status == "queued"


def test_extract_of_a_missing_episode_says_so_before_asking_for_a_model(store_url: str, no_model: None) -> None:
    code, _, err = run("extract", "--db", store_url, "-t", "acme", "nope")
    assert code == 4 and "no episode 'nope'" in err and "model" not in err


def test_the_worker_without_a_model_leases_nothing(store_url: str, no_model: None) -> None:
    with Memory(store_url) as memory:
        memory.remember("acme", "e1", AT, "Mira moved to Oslo.", extract=False)
    code, _, err = run("worker", "--db", store_url, "--no-progress")
    assert code == 7 and "no model configured" in err
    with Memory(store_url) as memory:
        queued = job(memory, "e1")
        assert (queued.status, queued.attempts, queued.lease_owner) == ("queued", 0, None)


def test_a_model_outage_is_counted_per_job_and_exits_7(store_url: str, model_server: ModelServer) -> None:
    model_server.default = Scripted(400, {"error": "the model is down"})
    with Memory(store_url) as memory:
        memory.remember("acme", "e1", AT, "Mira moved to Oslo.", extract=False)
    env = {"SGAM_LLM_BASE_URL": model_server.url, "SGAM_LLM_MODEL": "local-test"}
    code, out, _ = run("worker", "--db", store_url, "--json", env=env)
    assert code == 7
    assert json.loads(out) == {"jobs": 1, "done": 0, "failed": 1, "queued": 0, "erased": 0, "purged": 0, "attempts": 3}
    with Memory(store_url) as memory:
        memory.remember("acme", "e2", AT, "Mira moved to Oslo.", extract=False)
    code, out, _ = run("worker", "--db", store_url, "--no-progress", "--max-attempts", "2", env=env)
    assert code == 7
    assert "1 job: 0 done, 1 failed for good, 0 queued, 0 erased meanwhile (2 extraction attempts)" in out


def test_a_job_retried_within_a_run_is_one_job(memory: Memory) -> None:
    memory.remember("acme", "e1", AT, "Mira moved to Oslo.", extract=False)
    stats = Worker(memory, ScriptedClient.of(["not json", REPLY]), ExtractionPolicy.off()).run()
    assert (stats.jobs, stats.done, stats.failed, stats.queued, stats.attempts) == (1, 1, 0, 0, 2)


@pytest.mark.parametrize(("option", "value"), [
    ("--lease", "inf"), ("--lease", "nan"), ("--lease", "-1"), ("--lease", "0"),
    ("--batch", "-3"), ("--batch", "0"), ("--batch", str(10**30)),
    ("--max-attempts", "0"), ("--tenant", "not a tenant!"), ("--tenant", ""),
])
def test_worker_options_are_checked_before_anything_is_leased(store_url: str, option: str, value: str) -> None:
    with Memory(store_url) as memory:
        memory.remember("acme", "e1", AT, "Mira moved to Oslo.", extract=False)
    code, out, _ = run("worker", "--db", store_url, option, value, "--json")
    assert code in (2, 3), out
    assert json.loads(out)["error"]["kind"] in ("validation", "usage")
    with Memory(store_url) as memory:
        queued = job(memory, "e1")
        assert (queued.status, queued.attempts) == ("queued", 0)


@pytest.mark.parametrize("extraction_id", ["99999999999999999999999", "9223372036854775808", "0", "-1"])
def test_extractions_show_refuses_ids_out_of_range_on_both_backends(store_url: str, extraction_id: str) -> None:
    with Memory(store_url):
        pass
    code, out, _ = run("extractions", "show", "--db", store_url, "-t", "acme", "--json", "--", extraction_id)
    assert code == 3, out
    assert json.loads(out)["error"]["field"] == "id"


def test_a_blank_tenant_is_a_validation_error_on_both_backends(store_url: str) -> None:
    with Memory(store_url):
        pass
    code, out, _ = run("extractions", "show", "--db", store_url, "-t", "", "1", "--json")
    assert code == 3, out
    assert json.loads(out)["error"]["field"] == "tenant"
