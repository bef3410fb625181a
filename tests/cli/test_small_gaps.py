"""The small things a new user looks for: a version, listings, honest limits, JSON always."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sgam
from sgam import Memory
from sgam.cli import app
from sgam.extraction import ModelError
from sgam.search import Model2VecEmbedder
from tests.conftest import MODEL_DIR

AT = "2026-06-01T09:00:00Z"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> list[str]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    with Memory(url) as memory:
        for n in range(3):
            memory.add_episode("acme", f"e{n}", AT, f"Mira note {n}.", session="s1")
        memory.declare("acme", "city", "string", memory_type="profile")
        memory.write("acme", "mira", "city", "Paris", AT, "e0")
        memory.write("acme", "mira", "city", "Oslo", "2026-06-03T00:00:00Z", "e1")
        memory.write("acme", "mira", "age", 41, AT, "e0")
    return ["--db", url, "-t", "acme"]


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out == f"sgam {sgam.__version__}\n"


def test_episodes_schema_and_versions_are_listed(db: list[str]) -> None:
    code, out, _ = run("episodes", *db, "--json")
    assert code == 0 and [e["id"] for e in json.loads(out)] == ["e0", "e1", "e2"]
    code, out, _ = run("schema", *db, "--json")
    declared = json.loads(out)["attributes"]
    assert code == 0 and [(a["attribute"], a["value_type"], a["memory_type"]) for a in declared] == [
        ("city", "string", "profile")]
    code, out, _ = run("versions", *db, "mira", "city", "--json")
    records = json.loads(out)
    assert code == 0 and len(records) == 2  # Paris, ended where Oslo starts; Oslo
    assert {(r["value"], r["superseded_at"] is None, r["valid_to"] is None) for r in records} == {
        ("Paris", True, False), ("Oslo", True, True)}
    code, out, _ = run("versions", *db, "mira", "city", "--timeline")
    assert code == 0 and '"Oslo"' in out and "█" in out


def test_episodes_for_a_purpose_hide_what_consent_withholds(db: list[str]) -> None:
    with Memory(db[1]) as memory:
        memory.add_episode("acme", "o1", AT, "Ola likes tea.", speaker="ola")
        memory.consent("acme", "mira", False, purpose="ads")
    code, out, _ = run("episodes", *db, "--json")
    assert code == 0 and [e["id"] for e in json.loads(out)] == ["e0", "e1", "e2", "o1"]
    code, out, _ = run("episodes", *db, "--purpose", "ads", "--json")
    assert code == 0 and [e["id"] for e in json.loads(out)] == ["o1"]


def test_a_limit_that_cuts_the_list_is_said(db: list[str]) -> None:
    code, out, err = run("query", *db, "--all-times", "--limit", "1", "--json")
    assert code == 0 and len(json.loads(out)) == 1
    assert "showing the first 1 assertions; more match (raise --limit)" in err
    code, out, err = run("query", *db, "--all-times", "--limit", "3", "--json")
    assert code == 0 and len(json.loads(out)) == 3 and err == ""


@pytest.mark.parametrize("limit", ["0", "abc", "-1", "10001"])
def test_every_bad_limit_is_a_usage_error(db: list[str], limit: str) -> None:
    for command in (["query"], ["episodes"], ["extractions", "list"], ["search", "Mira"]):
        code, out, _ = run(*command, *db, "--limit", limit, "--json")
        assert code == 2, (command, out)
        assert json.loads(out)["error"]["kind"] == "usage"


def test_usage_errors_follow_json(db: list[str]) -> None:
    code, out, _ = run("write", *db, "mira", "city", "--json")
    assert code == 2
    assert json.loads(out) == {"error": {"kind": "usage", "message": "Missing argument 'value'."}}


def test_errors_and_results_are_indented_alike(db: list[str]) -> None:
    _, error, _ = run("get", *db, "mira", "city", "--at", "yesterday", "--json")
    _, result, _ = run("get", *db, "mira", "city", "--json")
    assert error.startswith('{\n  "error"') and result.startswith('{\n  "id"')


def test_index_without_an_embedder_is_an_error(db: list[str]) -> None:
    code, _, err = run("index", *db)
    assert code == 3 and "sgam index needs an embedder" in err


def test_model_error_is_exported_and_memory_has_a_useful_repr(tmp_path: Path) -> None:
    assert sgam.ModelError is ModelError and issubclass(ModelError, sgam.SgamError)
    with Memory(f"sqlite:///{tmp_path / 'x.db'}") as memory:
        assert repr(memory) == f"Memory('sqlite:///{tmp_path / 'x.db'}', embedder=None)"


def test_a_postgres_repr_hides_the_password() -> None:
    from sgam.memory.facade import redacted

    assert redacted("postgresql://app:secret@db:5432/sgam") == "postgresql://app:***@db:5432/sgam"


@pytest.mark.skipif(not MODEL_DIR.is_dir(), reason="shared model absent")
def test_loading_a_model_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    Model2VecEmbedder(MODEL_DIR)
    captured = capfd.readouterr()
    assert "Repo card metadata block" not in captured.out + captured.err
