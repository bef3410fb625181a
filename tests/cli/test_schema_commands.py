"""``sgam schema``: the declared attributes, and migrations — rename, retype with a
quarantine, the history of steps, and a migration file that ``plan`` shows without
changing anything and ``apply`` runs whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam.cli import app

T1 = "2026-06-01T00:00:00Z"
MIGRATION = """\
name: budgets become integers, cities are home cities
steps:
  - rename: {attribute: city, to: home_city}
  - retype: {attribute: budget, type: integer, map: [["a thousand", 1000]], quarantine: true}
  - schema: {attribute: language, type: string, cardinality: many}
"""


def _sgam(db: str, *args: str, code: int = 0) -> str:
    """``sgam GROUP COMMAND --tenant t --db DB ARGS`` (or ``sgam COMMAND ...`` for one word)."""
    head = 2 if args[0] == "schema" and len(args) > 1 and not args[1].startswith("-") else 1
    result = CliRunner().invoke(app, [*args[:head], "--tenant", "t", "--db", db, *args[head:]])
    assert result.exit_code == code, result.output
    return result.output


def _story(db: str) -> None:
    for args in (("episode", "e1", T1, "Ann: Oslo, budget lots then a thousand, speaks Dutch"),
                 ("declare", "budget", "string"), ("declare", "language", "string")):
        CliRunner().invoke(app, [args[0], "--tenant", "t", "--db", db, *args[1:]])
    for attribute, value, day in (("city", "Oslo", 1), ("budget", "lots", 1), ("budget", '"a thousand"', 2),
                                  ("language", "Dutch", 1)):
        result = CliRunner().invoke(app, ["write", "--tenant", "t", "--db", db, "ann", attribute, value,
                                          "--valid-from", f"2026-06-0{day}T00:00:00Z", "--source", "e1"])
        assert result.exit_code == 0, result.output


def test_a_migration_file_is_planned_without_change_then_applied(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    file = tmp_path / "migration.yaml"
    file.write_text(MIGRATION)
    planned = json.loads(_sgam(db, "schema", "plan", str(file), "--json"))
    assert [(p["operation"], p["outcome"]) for p in planned] == [("rename", "ok"), ("retype", "ok"),
                                                                 ("schema", "ok")]
    assert planned[1]["quarantined"] == 1 and planned[1]["examples"] == ["lots"]
    assert json.loads(_sgam(db, "schema", "history", "--json")) == []
    assert json.loads(_sgam(db, "get", "ann", "city", "--json"))["attribute"] == "city"
    applied = json.loads(_sgam(db, "schema", "apply", str(file), "--by", "ops", "--json"))
    assert len(applied) == 3
    history = json.loads(_sgam(db, "schema", "history", "--json"))
    assert [(c["kind"], c["decided_by"], c["origin"]) for c in history] == [
        ("rename", "ops", "migration.yaml"), ("retype", "ops", "migration.yaml"),
        ("cardinality", "ops", "migration.yaml")]
    assert json.loads(_sgam(db, "get", "ann", "city", "--json"))["attribute"] == "home_city"
    assert json.loads(_sgam(db, "get", "ann", "budget", "--json"))["value"] == 1000
    assert [(q["value"], q["reason"]) for q in json.loads(_sgam(db, "schema", "quarantine", "--json"))] == [
        ("lots", "no conversion to integer")]
    assert "home_city" in _sgam(db, "schema")


def test_a_bad_file_is_refused_whole_before_anything_runs(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    file = tmp_path / "bad.yaml"
    file.write_text("steps:\n  - rename: {attribute: city, to: town}\n  - retype: {attribute: budget, kind: x}\n")
    out = _sgam(db, "schema", "apply", str(file), "--json", code=3)
    assert "steps[2].retype" in out
    assert json.loads(_sgam(db, "schema", "history", "--json")) == []
    refused = tmp_path / "refused.yaml"
    refused.write_text("steps:\n  - rename: {attribute: city, to: town}\n"
                       "  - retype: {attribute: budget, type: integer}\n")
    planned = json.loads(_sgam(db, "schema", "plan", str(refused), "--json"))
    assert planned[0]["outcome"] == "ok" and planned[1]["outcome"].startswith("validation:")
    _sgam(db, "schema", "apply", str(refused), "--json", code=3)
    assert json.loads(_sgam(db, "schema", "history", "--json")) == []
    assert json.loads(_sgam(db, "get", "ann", "city", "--json"))["attribute"] == "city"


def test_a_backfill_is_watched_interrupted_and_resumed_from_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    for subject in ("bob", "cy", "dee"):
        result = CliRunner().invoke(app, ["write", "--tenant", "t", "--db", db, subject, "budget", '"12"',
                                          "--valid-from", T1, "--source", "e1"])
        assert result.exit_code == 0, result.output
    from sgam import Memory  # the step recorded, its backfill left for the commands below

    with Memory(db) as memory:
        memory.retype("t", "budget", "integer", quarantine=True, backfill=True, wait=False)
    [pending] = json.loads(_sgam(db, "schema", "status", "--json"))
    assert (pending["subjects_done"], pending["subjects_total"], pending["finished_at"]) == (0, 4, None)
    [stopped] = json.loads(_sgam(db, "schema", "backfill", "--batch", "1", "--max-batches", "2", "--json"))
    assert (stopped["batches_done"], stopped["subjects_done"], stopped["after_subject"]) == (2, 2, "bob")
    [done] = json.loads(_sgam(db, "schema", "backfill", "--batch", "1", "--json"))
    assert (done["batches_done"], done["subjects_done"]) == (4, 4) and done["finished_at"] is not None
    assert "subjects done" in _sgam(db, "schema", "status")


def test_an_applied_file_run_again_resumes_its_backfill(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    file = tmp_path / "migration.yaml"
    file.write_text(MIGRATION)
    from sgam import Memory
    from sgam.replay import migration_file

    with Memory(db) as memory, pytest.raises(KeyboardInterrupt):
        def interrupt(status: object) -> None:
            raise KeyboardInterrupt  # as Ctrl-C after the first batch committed

        migration_file.apply(memory, "t", file, progress=interrupt, batch=1, backfill=True)
    stopped = json.loads(_sgam(db, "schema", "status", "--json"))
    assert [(b["batches_done"], b["finished_at"]) for b in stopped] == [(1, None), (0, None), (0, None)]
    applied = json.loads(_sgam(db, "schema", "apply", str(file), "--json"))
    assert {p["outcome"] for p in applied} == {"resumed"}
    assert len(json.loads(_sgam(db, "schema", "history", "--json"))) == 3  # nothing recorded twice
    assert all(b["finished_at"] is not None for b in json.loads(_sgam(db, "schema", "status", "--json")))
    assert json.loads(_sgam(db, "get", "ann", "budget", "--json"))["value"] == 1000


def test_declare_over_stored_values_of_another_type_says_so(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    runner = CliRunner()
    for args in (["episode", "e1", "2026-06-01T00:00:00Z", "levels"],
                 ["write", "ann", "level", '"5"', "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1"]):
        assert runner.invoke(app, [args[0], "--tenant", "t", "--db", db, *args[1:]]).exit_code == 0
    table = runner.invoke(app, ["declare", "--tenant", "t", "--db", db, "level", "integer"])
    assert table.exit_code == 0 and "not of the type" in table.output and "retype" in table.output
    answer = runner.invoke(app, ["declare", "--tenant", "t", "--db", db, "level", "number", "--json"])
    found = json.loads(answer.output)
    assert found["not_of_type"] == 1 and "retype" in found["note"]


def test_the_schema_table_shows_renames_and_history_answers_a_map_as_values(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    file = tmp_path / "migration.yaml"
    file.write_text(MIGRATION)
    _sgam(db, "schema", "apply", str(file))
    table = _sgam(db, "schema")
    assert "renamed to" in table and "home_city" in table
    retyped = json.loads(_sgam(db, "schema", "history", "--json"))[1]
    assert retyped["detail"]["map"] == [["a thousand", 1000]]
    assert '[["a thousand", 1000]]' in _sgam(db, "schema", "history").replace("\n", "")


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_a_migration_file_nested_too_deep_is_a_validation_error(tmp_path: Path, command: str) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _story(db)
    file = tmp_path / "deep.yaml"
    file.write_text("steps:\n  - rename: {attribute: city, to: " + "[" * 500 + "]" * 500 + "}\n")
    result = CliRunner().invoke(app, ["schema", command, "--tenant", "t", "--db", db, str(file)])
    assert result.exit_code == 3 and "nested deeper than" in result.output and "file" in result.output
    assert "RecursionError" not in result.output and result.exception is None or isinstance(
        result.exception, SystemExit)
    assert json.loads(_sgam(db, "schema", "history", "--json")) == []
