"""Input from outside that once escaped as a crash: lone surrogates in model replies, deep
nesting, unhashable options, unserialisable scripted replies. Each must become an sgam
error, recorded where the path records failures, with stored state unchanged."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from sgam import Memory, SgamError, ValidationError
from sgam._core.errors import bounded_repr
from sgam.extraction import ExtractionPolicy, ScriptedClient, Worker

TEXT = "zoe likes tea."


def _update(value: Any, evidence: str = TEXT) -> dict[str, Any]:
    return {"evidence": evidence, "subject": "zoe", "attribute": "drink", "current_value": None,
            "change": "new", "value": value, "valid_from": None, "confidence": 0.9}


LONE_SURROGATE_REPLIES = [
    "\ud800",  # the raw text itself
    '{"updates": [] , "note": "\ud800"}',
    '{"updates": [{"evidence": "zoe likes tea.", "subject": "zoe", "attribute": "drink", '
    '"change": "new", "value": "\\ud800", "confidence": 0.9}]}',  # a JSON escape of one
]


@pytest.mark.parametrize("reply", LONE_SURROGATE_REPLIES, ids=["raw", "raw-in-json", "escaped"])
def test_a_reply_with_a_lone_surrogate_is_a_recorded_validation_failure(memory: Memory, reply: str) -> None:
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    with pytest.raises(ValidationError, match="Unicode"):
        memory.extract("acme", "e1", client=ScriptedClient.of([reply]), policy=ExtractionPolicy.off())
    (record,) = memory.extractions("acme")
    assert record.status == "failed" and record.error is not None and "Unicode" in record.error
    assert record.raw_reply is not None and "\\ud800" in record.raw_reply  # kept, escaped
    assert memory.get("acme", "zoe", "drink", at="2026-06-02T00:00:00Z") is None


def test_a_worker_never_runs_a_job_past_its_attempts(memory: Memory, clock: Any) -> None:
    memory.remember("acme", "e1", "2026-06-01T09:00:00Z", TEXT, extract=False)
    replies = ScriptedClient.of([LONE_SURROGATE_REPLIES[2]] * 10)
    worker = Worker(memory, replies, ExtractionPolicy.off(), lease_seconds=1, max_attempts=3)
    for _ in range(6):
        worker.run_once()
        clock.advance(2)
    assert [x.status for x in memory.extractions("acme")] == ["failed"] * 3
    assert len(replies) == 7  # three attempts asked the model, no more
    assert worker.backlog() == 0


def test_a_job_whose_last_attempt_left_no_record_is_given_up(memory: Memory, clock: Any) -> None:
    """A final attempt that died before recording (killed, or a bug) is not retried."""
    memory.remember("acme", "e1", "2026-06-01T09:00:00Z", TEXT, extract=False)
    now = int(clock().timestamp() * 1_000_000)
    for _ in range(3):  # three leases taken and never finished, as by killed workers
        assert memory.backend.claim_jobs("dead", now, now, 1, None)
    worker = Worker(memory, ScriptedClient(), ExtractionPolicy.off(), max_attempts=3)
    assert worker.run_once().failed == 1
    assert worker.backlog() == 0 and memory.extractions("acme") == []


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [101, 5_000])
def test_deep_values_are_validation_errors_everywhere(memory: Memory, depth: int) -> None:
    deep = _nested(depth)
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    calls = [
        lambda: memory.write("acme", "zoe", "drink", deep, "2026-06-01T09:00:00Z", "e1"),
        lambda: memory.add_episode("acme", "e2", "2026-06-01T09:00:00Z", TEXT, metadata={"a": deep}),
        lambda: memory.write_many("acme", [{"subject": "zoe", "attribute": "drink", "value": deep,
                                            "valid_from": "2026-06-01T09:00:00Z", "source": "e1"}]),
        lambda: memory.get("acme", deep, "drink"),
        lambda: memory.search("acme", deep),
        lambda: memory.recall("acme", deep),
        lambda: memory.query("acme", subject=deep),
    ]
    for call in calls:
        with pytest.raises(ValidationError) as caught:
            call()
        assert len(caught.value.message) < 400


def test_a_deep_reply_is_a_recorded_validation_failure(memory: Memory) -> None:
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    reply = "[" * 5_000 + "]" * 5_000
    with pytest.raises(ValidationError, match="reply"):
        memory.extract("acme", "e1", client=ScriptedClient.of([reply]), policy=ExtractionPolicy.off())
    assert [x.status for x in memory.extractions("acme")] == ["failed"]


def test_bounded_repr_never_fails_or_grows() -> None:
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    nested_dict: dict[str, Any] = {}
    for _ in range(10_000):
        nested_dict = {"a": nested_dict}
    for value in (_nested(10_000), nested_dict, "x" * 1_000_000, Hostile(), list(range(10**5))):
        assert len(bounded_repr(value)) <= 80


@pytest.mark.parametrize("config", [[], {}, {"a"}, 3, b"default"])
def test_a_config_that_is_not_a_preset_name_is_a_validation_error(memory: Memory, config: Any) -> None:
    with pytest.raises(ValidationError, match="config"):
        memory.search("acme", "tea", config=config)
    with pytest.raises(ValidationError, match="config"):
        memory.recall("acme", "tea", config=config)


@pytest.mark.parametrize("reply", [object(), {"a": {1, 2}}, float("nan"), b"bytes"])
def test_a_scripted_reply_without_json_text_is_a_validation_error(reply: Any) -> None:
    with pytest.raises(ValidationError, match="model_reply"):
        ScriptedClient.of([reply])
    with pytest.raises(ValidationError, match="model_reply"):
        ScriptedClient().queue(reply)
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(SgamError):
        ScriptedClient.of([circular])


def _stored(memory: Memory) -> Any:
    """Everything a refused call might have touched, to compare before and after."""
    return (list(memory.query("acme", all_times=True)), memory.episodes("acme"),
            memory.documents.history("acme", "/memories/a.md"))


def _forged_cursor(*position: Any) -> str:
    raw = json.dumps([1, *position]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


PAST_64_BITS = 2**63


@pytest.mark.parametrize("field, call", [
    ("revision", lambda m: m.documents.revision("acme", "/memories/a.md", PAST_64_BITS)),
    ("revision", lambda m: m.documents.diff("acme", "/memories/a.md", PAST_64_BITS)),
    ("revision", lambda m: m.documents.restore("acme", "/memories/a.md", 10**30)),
    ("expected_revision", lambda m: m.documents.write("acme", "/memories/a.md", "x", expected_revision=10**30)),
    ("cursor", lambda m: m.query("acme", cursor=_forged_cursor("zoe", "drink", 10**30))),
], ids=["revision", "diff", "restore", "expected_revision", "cursor"])
def test_integers_no_column_holds_are_validation_errors(memory: Memory, field: str, call: Any) -> None:
    """SQLite cannot even bind an integer past 64 bits (PostgreSQL compares it): both refuse it."""
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    memory.documents.create("acme", "/memories/a.md", "zoe likes tea.")
    before = _stored(memory)
    with pytest.raises(ValidationError) as caught:
        call(memory)
    assert caught.value.field == field
    assert _stored(memory) == before


UNSTORABLE = {"lone surrogate": "tea \ud800", "NUL": "tea \x00"}


@pytest.mark.parametrize("text", sorted(UNSTORABLE), ids=sorted(UNSTORABLE))
@pytest.mark.parametrize("field, call", [
    ("question", lambda m, t: m.recall("acme", t)),
    ("question", lambda m, t: m.search("acme", t)),
    ("query", lambda m, t: m.documents.search("acme", t)),
    ("value", lambda m, t: m.write("acme", "zoe", "drink", t, "2026-06-01T09:00:00Z", "e1")),
    ("value.a[0]", lambda m, t: m.write("acme", "zoe", "drink", {"a": [t]}, "2026-06-01T09:00:00Z", "e1")),
    ("value", lambda m, t: m.write("acme", "zoe", "drink", {t: 1}, "2026-06-01T09:00:00Z", "e1")),
    ("metadata.a", lambda m, t: m.add_episode("acme", "e2", "2026-06-01T09:00:00Z", TEXT, metadata={"a": t})),
], ids=["recall", "search", "document search", "value", "nested value", "object key", "metadata"])
def test_text_no_backend_stores_is_refused_by_both(memory: Memory, text: str, field: str, call: Any) -> None:
    """One rule on both backends: no lone surrogate (no UTF-8 for it) and no NUL
    (PostgreSQL refuses it; SQLite would keep it) in any string sgam takes."""
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    memory.documents.create("acme", "/memories/a.md", "zoe likes tea.")
    before = _stored(memory)
    with pytest.raises(ValidationError) as caught:
        call(memory, UNSTORABLE[text])
    assert caught.value.field == field
    assert _stored(memory) == before
