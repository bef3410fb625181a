from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sgam import ValidationError
from sgam.cli import app
from sgam.eval import evaluate_locomo
from sgam.eval.locomo import conversation_episodes, parse_session_time, resolve_evidence
from sgam.search import Model2VecEmbedder

from ..conftest import LOCOMO, MODEL_DIR, PostgresUrls


def test_session_time_is_read_as_utc() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_time("9:05 am on 1 January, 2024") == datetime(2024, 1, 1, 9, 5, tzinfo=UTC)
    with pytest.raises(ValidationError, match="session_date_time"):
        parse_session_time("yesterday")


def test_malformed_evidence_is_split_and_unknown_ids_dropped() -> None:
    known = {"D8:6", "D9:17", "D1:1"}
    assert resolve_evidence(["D8:6; D9:17"], known) == ["D8:6", "D9:17"]
    assert resolve_evidence(["D1:1", "D1:1", "D99:1", ""], known) == ["D1:1"]
    assert resolve_evidence([], known) == []
    assert resolve_evidence(None, known) == []


def _tiny() -> list[dict[str, object]]:
    return [{
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Rex."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely!", "blip_caption": "a photo of a cake"},
            ],
            "session_2_date_time": "10:00 am on 9 May, 2023",
            "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning the violin."}],
        },
        "qa": [
            {"question": "What is the name of Ann's puppy?", "answer": "Rex", "evidence": ["D1:1"], "category": 4},
            {"question": "What instrument does Bob learn?", "answer": "violin", "evidence": ["D2:1"],
             "category": 1},
            {"question": "Broken", "answer": "-", "evidence": [], "category": 2},
        ],
    }]


def test_episodes_carry_session_speaker_time_and_captions() -> None:
    episodes = conversation_episodes(_tiny()[0])
    assert [e["id"] for e in episodes] == ["D1:1", "D1:2", "D2:1"]
    assert episodes[1]["text"] == "Lovely! [image: a photo of a cake]"
    assert episodes[1]["at"] == datetime(2023, 5, 8, 13, 56, 1, tzinfo=UTC)
    assert episodes[2]["session"] == "session_2"


def test_tiny_conversation_scores(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()))
    result = evaluate_locomo(path)
    assert result["questions"] == 2 and result["skipped"] == 1
    assert result["turn_recall_any"]["1"] == 1.0
    assert result["baseline_bm25"]["turn_recall_any"]["10"] == 1.0
    assert set(result["per_category"]) == {"multi-hop", "single-hop"}


@pytest.mark.skipif(not (LOCOMO.is_file() and MODEL_DIR.is_dir()), reason="shared LoCoMo data or model absent")
def test_one_real_conversation_beats_bm25(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps(json.loads(LOCOMO.read_text())[:1]))
    result = evaluate_locomo(path, embedder=Model2VecEmbedder(MODEL_DIR))
    assert result["questions"] > 100
    assert result["turn_recall_any"]["10"] >= result["baseline_bm25"]["turn_recall_any"]["10"]
    assert result["turn_recall_any"]["10"] > 0.6


def test_tiny_conversation_scores_the_same_on_postgres(tmp_path: Path, postgres: PostgresUrls) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()))
    on_sqlite, on_postgres = evaluate_locomo(path), evaluate_locomo(path, db=postgres.app)
    del on_sqlite["seconds"], on_postgres["seconds"]
    assert on_postgres == on_sqlite
    with pytest.raises(ValidationError, match="db: already holds"):
        evaluate_locomo(path, db=postgres.app)


def test_the_cli_prints_json_only_with_json_and_names_categories(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()))
    text = CliRunner().invoke(app, ["eval", "locomo", str(path)])
    assert text.exit_code == 0, text.output
    assert not text.stdout.lstrip().startswith("{")
    assert "single-hop" in text.stdout and "multi-hop" in text.stdout
    as_json = CliRunner().invoke(app, ["eval", "locomo", str(path), "--json"])
    assert set(json.loads(as_json.stdout)["per_category"]) == {"multi-hop", "single-hop"}


@pytest.mark.parametrize("content", [[], [{"sample_id": "c1", "conversation": {}, "qa": []}],
                                     [{"sample_id": "c1", "conversation": {}, "qa": [{"question": "q?",
                                                                                       "evidence": ["D9:9"]}]}]])
def test_a_file_with_no_question_to_score_is_a_validation_error(tmp_path: Path, content: list[Any]) -> None:
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValidationError, match="holds no question to score"):
        evaluate_locomo(path)
    shown = CliRunner().invoke(app, ["eval", "locomo", str(path), "--json"])
    assert shown.exit_code == 3 and json.loads(shown.stdout)["error"]["field"] == "path"
