"""``sgam schema``: the declared attributes, and migrations — rename, retype with a
quarantine, the history of steps, and a migration file that ``plan`` shows without
changing anything and ``apply`` runs whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

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
