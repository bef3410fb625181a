from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sgam import Memory
from sgam.cli.app import app

runner = CliRunner()


def test_recall_command_prints_fenced_context_and_json(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", "2024-01-01T00:00:00Z", "Ann prefers window seats", speaker="ann")
        memory.write("acme", "ann", "seat_preference", "window", "2024-01-01T00:00:00Z", "e1")
    out = runner.invoke(app, ["recall", "-t", "acme", "What seat preference does Ann have?", "--db", store_url])
    assert out.exit_code == 0, out.output
    assert "<memory" in out.output and "[CURRENT]" in out.output
    out = runner.invoke(app, ["recall", "-t", "acme", "ann seat", "--db", store_url, "--json", "--budget", "300"])
    data = json.loads(out.output)
    assert data["facts"][0]["value"] == "window" and data["tokens"] <= 300
    assert data["context"].startswith("<memory") and data["question"] == "ann seat"


def test_recall_json_has_the_shape_of_http_and_mcp_recall(store_url: str) -> None:
    """One recall, one shape: the CLI's ``--json``, ``POST /v1/recall`` and the MCP tool."""
    from sgam.server.mcp import RecallOutput
    from sgam.server.models import RecallOut

    Memory(store_url).close()
    out = runner.invoke(app, ["recall", "-t", "acme", "anything", "--db", store_url, "--json"])
    assert out.exit_code == 0, out.output
    keys = list(json.loads(out.output))
    assert keys == list(RecallOut.model_fields) == list(RecallOutput.model_fields)
    assert keys == ["question", "context", "facts", "documents", "evidence", "tokens", "budget", "dropped"]


def test_recall_command_bad_budget_is_a_validation_exit(store_url: str) -> None:
    Memory(store_url).close()
    out = runner.invoke(app, ["recall", "-t", "acme", "anything", "--db", store_url, "--budget", "0"])
    assert out.exit_code == 3


def test_search_command(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", "2024-01-01T00:00:00Z", "The boiler was serviced", speaker="tech")
    out = runner.invoke(app, ["search", "-t", "acme", "boiler service", "--db", store_url, "--json"])
    assert out.exit_code == 0 and json.loads(out.output)[0]["episode_id"] == "e1"


def test_eval_locomo_json_is_one_object(tmp_path: Path) -> None:
    from ..eval.test_locomo import _tiny

    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()))
    out = runner.invoke(app, ["eval", "locomo", str(path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert {"questions", "seconds", "turn_recall_any", "turn_recall_all", "session_recall_any",
            "per_category", "baseline_bm25"} <= set(data)


def test_eval_locomo_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{")
    assert runner.invoke(app, ["eval", "locomo", str(path)]).exit_code == 3


def test_index_command_without_embedder_is_an_error(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", "2024-01-01T00:00:00Z", "text")
    out = runner.invoke(app, ["index", "-t", "acme", "--db", store_url, "--json"])
    assert out.exit_code == 3 and json.loads(out.output)["error"]["field"] == "embedder"
    out = runner.invoke(app, ["index", "-t", "acme", "--db", store_url, "--embedder", "model2vec:/nowhere"])
    assert out.exit_code == 3
