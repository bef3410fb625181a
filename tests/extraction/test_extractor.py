"""The hot path: remember/extract, the records they leave, bad models, erasure."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sgam import ConflictError, Memory, ValidationError
from sgam.extraction import (
    ClientSettings,
    ExtractionPolicy,
    ModelError,
    OpenAIClient,
    Outcome,
    ScriptedClient,
    Worker,
    parse_reply,
    response_schema,
)
from sgam.store._records import ERROR_REDACTED

from .conftest import ModelServer, Scripted, completion

AT = "2026-06-01T09:00:00Z"
TEXT = "Mira's passport deadline is 2026-07-15. Mira was diagnosed with asthma."


def update(evidence: str, attribute: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {
        "evidence": evidence,
        "subject": "mira",
        "attribute": attribute,
        "current_value": None,
        "change": "new",
        "value": value,
        "valid_from": None,
        "confidence": 0.9,
        **extra,
    }


def test_remember_extracts_and_records_every_decision(memory: Memory) -> None:
    memory.declare("acme", "diagnosis", "string", sensitive=True)
    reply = {
        "updates": [
            update("Mira's passport deadline is 2026-07-15.", "passport_deadline", "2026-07-15"),
            update("Mira was diagnosed with asthma.", "diagnosis", "asthma"),
            update("Mira likes Oslo.", "city", "Oslo"),
            update("Mira's passport", "nickname", "pass", change="no_change"),
        ]
    }
    done = memory.remember(
        "acme", "e1", AT, TEXT, client=ScriptedClient.of([reply]), policy=ExtractionPolicy()
    )
    assert done.extraction is not None and not done.queued
    outcomes = [d.outcome for d in done.extraction.decisions]
    assert outcomes == [Outcome.ACCEPTED, Outcome.PENDING, Outcome.REJECTED, Outcome.DROPPED]
    assert "does not occur verbatim" in (done.extraction.decisions[2].reason or "")
    (stored,) = memory.extractions("acme", episode="e1")
    assert stored == done.extraction and stored.raw_reply is not None and "asthma" in stored.raw_reply
    (held,) = memory.held("acme")
    assert (held.hold, held.attribute, held.value) == ("pending", "diagnosis", "asthma")
    assert memory.get("acme", "mira", "diagnosis") is None
    result = memory.confirm("acme", held.id)
    assert result.assertion is not None and result.assertion.source == "e1"
    assert memory.held("acme") == []


def test_a_model_that_times_out_keeps_the_episode_and_records_the_failure(
    memory: Memory, model_server: ModelServer
) -> None:
    model_server.reply(200, {"choices": []}, delay=0.5)
    client = OpenAIClient(ClientSettings(base_url=model_server.url, model="m", timeout=0.1, max_retries=0))
    with client, pytest.raises(ModelError, match="timed out"):
        memory.remember("acme", "e1", AT, TEXT, client=client)
    assert memory.episode("acme", "e1") is not None
    (record,) = memory.extractions("acme", episode="e1")
    assert record.status == "failed" and record.raw_reply is None and "timed out" in (record.error or "")
    assert memory.query("acme") == []


@pytest.mark.parametrize("reply", ["not json", '{"facts": []}', '{"updates": [{"subject": "mira"}]}', "[]"])
def test_an_unusable_reply_writes_nothing_and_is_kept_raw(memory: Memory, reply: str) -> None:
    memory.add_episode("acme", "e1", AT, TEXT)
    with pytest.raises(ValidationError, match="reply"):
        memory.extract("acme", "e1", client=ScriptedClient.of([reply]))
    (record,) = memory.extractions("acme")
    assert (record.status, record.raw_reply) == ("failed", reply)
    assert memory.query("acme") == []


def test_forget_episode_removes_extractions_and_held_candidates(memory: Memory) -> None:
    reply = {"updates": [update("Mira was diagnosed with asthma.", "mood", "tired", confidence=0.1)]}
    memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    assert len(memory.held("acme")) == 1 and len(memory.extractions("acme")) == 1
    memory.forget_episode("acme", "e1")
    assert memory.held("acme", status=None) == [] and memory.extractions("acme") == []


def test_forget_subject_removes_its_held_candidates(memory: Memory) -> None:
    reply = {"updates": [update("Mira was diagnosed with asthma.", "mood", "tired", confidence=0.1)]}
    memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    memory.forget_subject("acme", "mira")
    assert memory.held("acme", status=None) == []


def test_records_are_tenant_scoped(memory: Memory) -> None:
    memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([{"updates": []}]))
    assert memory.extractions("globex") == [] and memory.held("globex") == []
    with pytest.raises(LookupError):
        memory.confirm("globex", 1)


def test_policy_settings_are_validated_and_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_EXTRACTION_MIN_CONFIDENCE", "0.8")
    monkeypatch.setenv("SGAM_EXTRACTION_PROMOTE_AFTER", "3")
    policy = ExtractionPolicy.from_env()
    assert (policy.min_confidence, policy.promote_after) == (0.8, 3)
    with pytest.raises(ValueError):
        ExtractionPolicy(min_confidence=1.5)


def test_the_schema_sent_to_models_asks_for_evidence_first_and_every_field() -> None:
    candidate = response_schema()["$defs"]["Candidate"]
    assert next(iter(candidate["properties"])) == "evidence"
    assert set(candidate["required"]) == set(candidate["properties"])
    (parsed,) = parse_reply(
        '{"updates": [{"evidence": "x", "subject": "s", "attribute": "a", "change": "new", '
        '"value": 1, "confidence": 1, "tenant": "other"}]}'
    )
    assert parsed.stated is True and not hasattr(parsed, "tenant")


def test_forget_subject_erases_it_from_extraction_records(store_url: str) -> None:
    with Memory(store_url) as memory:
        _forget_subject_erases_it_from_extraction_records(memory)


def _forget_subject_erases_it_from_extraction_records(memory: Memory) -> None:
    reply = {
        "updates": [
            update("Mira was diagnosed with asthma.", "diagnosis", "asthma"),
            update("Mira's passport deadline is 2026-07-15.", "passport_deadline", "2026-07-15",
                   subject="passport_office"),
        ]
    }
    memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    assert memory.get("acme", "mira", "diagnosis") is not None
    memory.forget_subject("acme", "mira")
    (record,) = memory.extractions("acme", episode="e1")
    assert record.raw_reply is None or "asthma" not in record.raw_reply
    assert all(d.candidate.get("subject") != "mira" for d in record.decisions)
    assert "asthma" not in repr(record)
    # what is not about the erased subject stays inspectable
    assert [d.candidate["subject"] for d in record.decisions] == ["passport_office"]


def test_forget_subject_removes_the_error_that_quoted_its_reply(store_url: str) -> None:
    """A failed extraction's error may quote the unusable reply; both leave together."""
    with Memory(store_url) as memory:
        hostile = '{"updates": [{"subject": "mira", "attribute": "diagnosis", "value": "asthma"}]}'
        with pytest.raises(ValidationError):
            memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([hostile]))
        (failed,) = memory.extractions("acme", episode="e1")
        assert failed.status == "failed" and failed.error is not None and failed.raw_reply == hostile
        memory.forget_subject("acme", "mira")
        (record,) = memory.extractions("acme", episode="e1")
        assert record.raw_reply is None
        assert record.error == ERROR_REDACTED
        assert "asthma" not in repr(record)


def test_confirm_writes_and_resolves_in_one_transaction(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgam import StoreError
    from sgam.store.postgres.write import PostgresWrite
    from sgam.store.sqlite.backend import SQLiteWrite

    memory.declare("acme", "diagnosis", "string", sensitive=True)
    reply = {"updates": [update("Mira was diagnosed with asthma.", "diagnosis", "asthma")]}
    memory.remember("acme", "e1", AT, TEXT, client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    (held,) = memory.held("acme")

    def broken(*args: Any) -> None:
        raise StoreError("disk full")

    for write in (SQLiteWrite, PostgresWrite):
        monkeypatch.setattr(write, "resolve_held", broken)
    with pytest.raises(StoreError):
        memory.confirm("acme", held.id)
    assert memory.get("acme", "mira", "diagnosis") is None  # nothing half done
    monkeypatch.undo()
    memory.reject("acme", held.id)
    with pytest.raises(ConflictError):  # a rejected candidate is never written
        memory.confirm("acme", held.id)
    assert memory.get("acme", "mira", "diagnosis") is None


def test_forget_episode_erases_its_values_from_other_extraction_records(store_url: str) -> None:
    """A later extraction showed the model the value an erased episode had written (its
    ``current_value``); that record must not keep returning it."""
    with Memory(store_url) as memory:
        first = {"updates": [update("Mira has asthma.", "diagnosis", "asthma")]}
        later = {"updates": [
            update("Mira moved to Oslo.", "city", "Oslo"),
            update("Mira moved to Oslo.", "diagnosis", None, current_value="asthma", change="no_change"),
        ]}
        policy = ExtractionPolicy.off()
        memory.remember("acme", "e1", AT, "Mira has asthma.", client=ScriptedClient.of([first]), policy=policy)
        memory.remember("acme", "e2", "2026-06-02T09:00:00Z", "Mira moved to Oslo.",
                        client=ScriptedClient.of([later]), policy=policy)
        memory.forget_episode("acme", "e1")
        (record,) = memory.extractions("acme")
        assert "asthma" not in repr(record)
        assert [d.candidate["attribute"] for d in record.decisions] == ["city"]


SURROGATE_REPLY = json.dumps({"updates": [update("Mira was diagnosed with asthma.", "diagnosis", "asthma \ud800")]},
                             ensure_ascii=False)


def test_a_model_reply_with_a_lone_surrogate_is_unusable_and_writes_nothing(
    memory: Memory, model_server: ModelServer
) -> None:
    """The server's JSON escapes a lone surrogate; decoded, no UTF-8 can carry it: neither
    the repair request that quotes the reply nor the store."""
    model_server.default = Scripted(200, completion(SURROGATE_REPLY))
    settings = ClientSettings(base_url=model_server.url, model="m", max_retries=0)
    with OpenAIClient(settings) as client, pytest.raises(ValidationError) as caught:
        memory.remember("acme", "e1", AT, TEXT, client=client, policy=ExtractionPolicy())
    assert caught.value.field is not None and caught.value.field.startswith("reply")
    repair = model_server.requests[1]["body"]["messages"]
    assert repair[-2]["content"] == SURROGATE_REPLY.encode("utf-8", "backslashreplace").decode()
    assert "lone surrogate" in repair[-1]["content"]
    (record,) = memory.extractions("acme")
    assert record.status == "failed" and record.raw_reply is not None and "\\ud800" in record.raw_reply
    assert memory.query("acme", all_times=True) == [] and memory.held("acme") == []

    memory.remember("acme", "e2", AT, TEXT, extract=False)
    with OpenAIClient(settings) as client:
        stats = Worker(memory, client, ExtractionPolicy(), max_attempts=1).run_once()
    assert (stats.jobs, stats.failed) == (1, 1)
    assert memory.query("acme", all_times=True) == [] and memory.held("acme") == []
