"""The LongMemEval runner on small files written in the benchmark's published format."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sgam import ValidationError
from sgam.cli import app
from sgam.eval import evaluate_longmemeval
from sgam.eval.longmemeval import instance_of, parse_date


def _instance(qid: str, qtype: str, question: str, answer_session: str, sessions: dict[str, list[Any]]) -> Any:
    return {
        "question_id": qid, "question_type": qtype, "question": question, "answer": "-",
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": list(sessions),
        "haystack_dates": [f"2023/05/{day:02d} (Sat) 0{day % 10}:21" for day in range(1, len(sessions) + 1)],
        "haystack_sessions": list(sessions.values()),
        "answer_session_ids": [answer_session],
    }


def _file(tmp_path: Path) -> Path:
    filler = [{"role": "user", "content": "Can you suggest a pasta recipe?"},
              {"role": "assistant", "content": "Try a simple tomato and basil pasta."}]
    data = [
        _instance("q1", "single-session-user", "What breed is my dog Rex?", "s_dog", {
            "s_pasta": filler,
            "s_dog": [{"role": "user", "content": "My beagle Rex keeps chewing shoes.", "has_answer": True},
                      {"role": "assistant", "content": "Beagles chew when bored; try toys."}],
            "s_car": [{"role": "user", "content": "My car needs new tyres."}],
        }),
        _instance("q2", "single-session-assistant", "Which book did you recommend for learning Rust?", "s_rust", {
            "s_rust": [{"role": "user", "content": "How do I learn Rust?"},
                       {"role": "assistant", "content": "Read The Rust Programming Language book.",
                        "has_answer": True}],
            "s_pasta": filler,
        }),
        _instance("q3", "multi-session", "When did I start violin lessons?", "s_violin", {
            "s_violin": [{"role": "user", "content": "I started violin lessons."}],
            "s_pasta": filler,
        }),
        _instance("q4_abs", "single-session-user", "What is my cat's name?", "s_dog", {"s_dog": filler}),
    ]
    path = tmp_path / "longmemeval_tiny.json"
    path.write_text(json.dumps(data))
    return path


def test_dates_are_read_as_utc() -> None:
    assert parse_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    with pytest.raises(ValidationError, match="date"):
        parse_date("May 20")


def test_turns_become_episodes_with_evidence_from_has_answer(tmp_path: Path) -> None:
    item = json.loads(_file(tmp_path).read_text())[0]
    instance = instance_of(item, 7)
    assert instance.tenant == "q1" and instance.group == "block-2"
    assert [e["id"] for e in instance.episodes][:3] == ["s_pasta:0", "s_pasta:1", "s_dog:0"]
    assert instance.episodes[2]["speaker"] == "user" and instance.episodes[2]["session"] == "s_dog"
    assert instance.questions[0].evidence == ["s_dog:0"]
    assert instance.questions[0].sessions == {"s_dog"}
    assert instance.now == datetime(2023, 6, 1, 10, 0, tzinfo=UTC)


def test_scores_per_type_and_skips_abstention(tmp_path: Path) -> None:
    result = evaluate_longmemeval(_file(tmp_path))
    assert result["questions"] == 3 and result["abstention"] == 1
    assert result["turn_questions"] == 2
    assert result["session_recall_any"]["1"] == 1.0
    assert result["turn_recall_any"]["5"] == 1.0
    assert set(result["per_type"]) == {"single-session-user", "single-session-assistant", "multi-session"}
    assert result["per_type"]["multi-session"]["turn_questions"] == 0
    assert result["baseline_bm25"]["session_recall_any"]["5"] == 1.0


def test_cli_json_and_cross_validation(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["eval", "longmemeval", str(_file(tmp_path)), "--json", "--cv"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["mode"] == "cv" and len(result["folds"]) == 3
    assert set(result["cross_validated"]["per_type"]) == {"single-session-user", "single-session-assistant",
                                                          "multi-session"}
    assert "10" in result["cross_validated"]["session_recall_any"]


def test_malformed_files_name_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"question_id": "q"}]))
    with pytest.raises(ValidationError, match="lacks question_type"):
        evaluate_longmemeval(path)
    item = json.loads(_file(tmp_path).read_text())[0]
    item["haystack_dates"] = item["haystack_dates"][:1]
    path.write_text(json.dumps([item]))
    with pytest.raises(ValidationError, match="differ in length"):
        evaluate_longmemeval(path)
    assert CliRunner().invoke(app, ["eval", "longmemeval", str(tmp_path / "missing.json")]).exit_code == 3


def test_a_file_with_no_question_to_score_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text("[]")
    out = CliRunner().invoke(app, ["eval", "longmemeval", str(path), "--json"])
    assert out.exit_code == 3 and "holds no question to score" in out.stdout
