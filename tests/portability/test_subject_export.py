"""A subject's export holds what the tenant holds about it under every name, the values
of other subjects that name it and the episodes behind them, and nothing else of another
subject; no import accepts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgam import Memory, ValidationError
from tests.conftest import ManualClock, Store

TENANT = "acme"


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:-1]]


def test_a_subjects_export_holds_its_facts_and_nothing_of_others(store: Store, tmp_path: Path) -> None:
    with Memory(store.url, clock=ManualClock()) as memory:
        memory.declare(TENANT, "manager", "subject")
        memory.add_episodes(TENANT, [
            {"id": "about-ann", "at": "2026-06-01T00:00:00Z", "text": "Ann lives in Paris"},
            {"id": "about-bob", "at": "2026-06-01T00:00:00Z", "text": "Bob manages Ann, Bob likes tea"},
            {"id": "about-cy", "at": "2026-06-01T00:00:00Z", "text": "Cy lives in Oslo"},
        ])
        memory.write(TENANT, "ann", "city", "Paris", "2026-06-01T00:00:00Z", "about-ann")
        memory.write(TENANT, "annie", "phone", "555", "2026-06-01T00:00:00Z", "about-ann")
        memory.alias(TENANT, "annie", "ann")
        memory.write(TENANT, "bob", "manager", "ann", "2026-06-01T00:00:00Z", "about-bob")
        memory.write(TENANT, "bob", "drink", "tea", "2026-06-01T00:00:00Z", "about-bob")
        memory.write(TENANT, "cy", "city", "Oslo", "2026-06-01T00:00:00Z", "about-cy")
        memory.consent(TENANT, "ann", False, purpose="marketing")
        path = tmp_path / "ann.jsonl"
        summary = memory.export_subject(TENANT, "annie", path)
        with pytest.raises(ValidationError, match="access request") as refused:
            memory.import_tenant("elsewhere", path)
        assert refused.value.field == "line 1.subject"
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["subject"] == "annie"
    records = _records(path)
    assert summary.records == len(records)
    facts = {(r["row"]["subject"], r["row"]["attribute"], json.dumps(r["row"]["value"]))  # type: ignore[index]
             for r in records if r["table"] == "operations"}
    assert facts == {("ann", "city", '"Paris"'), ("annie", "phone", '"555"'), ("bob", "manager", '"ann"')}
    episodes = {r["row"]["episode_id"] for r in records if r["table"] == "episodes"}  # type: ignore[index]
    assert episodes == {"about-ann", "about-bob"}
    assert {r["row"]["purpose"] for r in records if r["table"] == "consents"} == {"marketing"}  # type: ignore[index]
    assert any(r["table"] == "subject_aliases" for r in records)
    text = path.read_text(encoding="utf-8")
    assert "Oslo" not in text and '"cy"' not in text and "drink" not in text
