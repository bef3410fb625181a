"""The extraction commands are a thin skin over the library."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.cli.demo_extraction import demo_extraction
from sgam.extraction import ExtractionPolicy, ScriptedClient

runner = CliRunner()


def test_extractions_list_show_held_confirm_reject(store_url: str) -> None:
    with Memory(store_url) as memory:
        demo_extraction(memory)
        memory.declare("acme", "diagnosis", "string", sensitive=True)
        reply = {
            "updates": [
                {
                    "evidence": "asthma",
                    "subject": "mira",
                    "attribute": "diagnosis",
                    "change": "new",
                    "value": "asthma",
                    "confidence": 0.9,
                },
                {
                    "evidence": "flu",
                    "subject": "mira",
                    "attribute": "diagnosis",
                    "change": "new",
                    "value": "flu",
                    "valid_from": "2026-06-05T00:00:00Z",
                    "confidence": 0.9,
                },
            ]
        }
        memory.remember(
            "acme",
            "e3",
            "2026-06-04T00:00:00Z",
            "asthma, later flu",
            client=ScriptedClient.of([reply]),
            policy=ExtractionPolicy.off(),
        )
    listed = runner.invoke(app, ["extractions", "list", "-t", "acme", "--db", store_url, "--json"])
    assert listed.exit_code == 0, listed.output
    records = json.loads(listed.output)
    assert [r["episode_id"] for r in records] == ["e3", "e2", "e1"]
    shown = runner.invoke(app, ["extractions", "show", "-t", "acme", str(records[1]["id"]), "--db", store_url])
    assert shown.exit_code == 0 and "rejected" in shown.output and "raw reply" in shown.output
    as_json = runner.invoke(
        app, ["extractions", "show", "-t", "acme", str(records[1]["id"]), "--db", store_url, "--json"]
    )
    decisions = json.loads(as_json.output)["decisions"]
    assert decisions[1]["outcome"] == "rejected" and "does not occur verbatim" in decisions[1]["reason"]
    held = json.loads(
        runner.invoke(app, ["extractions", "held", "-t", "acme", "--db", store_url, "--json"]).output
    )
    assert [h["value"] for h in held] == ["asthma", "flu"]
    assert runner.invoke(app, ["confirm", "-t", "acme", str(held[0]["id"]), "--db", store_url]).exit_code == 0
    assert runner.invoke(app, ["reject", "-t", "acme", str(held[1]["id"]), "--db", store_url]).exit_code == 0
    again = runner.invoke(app, ["reject", "-t", "acme", str(held[1]["id"]), "--db", store_url])
    assert again.exit_code == 5  # conflict: already settled
    missing = runner.invoke(
        app, ["extractions", "show", "-t", "globex", str(records[0]["id"]), "--db", store_url]
    )
    assert missing.exit_code == 4
    with Memory(store_url) as memory:
        assert memory.get("acme", "mira", "diagnosis", at="2026-06-06T00:00:00Z").value == "asthma"  # type: ignore[union-attr]


def test_worker_command_with_nothing_queued(store_url: str) -> None:
    result = runner.invoke(app, ["worker", "--db", store_url, "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"jobs": 0, "done": 0, "failed": 0, "queued": 0, "erased": 0, "attempts": 0,
                                         "purged": 0}


def test_demo_helper_prints_candidates_and_decisions(store_url: str) -> None:
    lines: list[str] = []
    with Memory(store_url) as memory:
        steps = demo_extraction(memory, echo=lines.append)
        assert memory.get("acme", "mira", "passport_deadline").value == "2026-06-30"  # type: ignore[union-attr]
    assert [s.episode for s in steps] == ["e1", "e2"]
    assert any("-> rejected" in line for line in lines) and any("superseded" in line for line in lines)
