"""The CLI of sets and subject names: declare a set, read its members (``members``, and
``get`` of a set), retract one member, see cardinality in ``schema``; tables show a
subject's first spelling, JSON its normalised id."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sgam.cli import app

T1 = "2026-06-01T00:00:00Z"


def _sgam(db: str, *args: str) -> str:
    result = CliRunner().invoke(app, [args[0], "--tenant", "t", "--db", db, *args[1:]])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_set_through_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _sgam(db, "episode", "e1", T1, "Team 7: Mira and Ola")
    assert "many" in _sgam(db, "declare", "members", "string", "--cardinality", "many")
    for who in ("Mira", "Ola"):
        _sgam(db, "write", "Team  7", "members", who, "--valid-from", T1, "--source", "e1")
    table = _sgam(db, "get", "team 7", "members")
    assert "Team 7.members" in table and '"Mira"' in table and '"Ola"' in table
    found = json.loads(_sgam(db, "members", "TEAM 7", "members", "--json"))
    assert [(m["subject"], m["value"]) for m in found] == [("team 7", "Mira"), ("team 7", "Ola")]
    assert json.loads(_sgam(db, "get", "Team 7", "members", "--json")) == found
    _sgam(db, "retract", "team 7", "members", "--at", "2026-06-02T00:00:00Z", "--source", "e1", "--value", "Ola")
    assert [m["value"] for m in json.loads(_sgam(db, "members", "team 7", "members", "--json"))] == ["Mira"]
    schema = _sgam(db, "schema")
    assert "cardinality" in schema and "many" in schema
    assert json.loads(_sgam(db, "collisions", "--json")) == []


def test_relations_through_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _sgam(db, "episode", "e1", T1, "Acme buys from Cogs; Zed buys from Acme")
    _sgam(db, "declare", "supplier", "subject", "--cardinality", "many")
    _sgam(db, "write", "Acme Corp", "supplier", "Cogs", "--valid-from", T1, "--source", "e1")
    _sgam(db, "write", "zed", "supplier", "acme corp", "--valid-from", T1, "--source", "e1")
    assert json.loads(_sgam(db, "linked", "supplier", "COGS", "--json")) == ["acme corp"]
    assert "Acme Corp (acme corp)" in _sgam(db, "linked", "supplier", "cogs")
    found = json.loads(_sgam(db, "reachable", "zed", "--attribute", "supplier", "--depth", "2", "--json"))
    assert sorted(found["subjects"]) == ["acme corp", "cogs"] and found["cut"] is False
    cut = CliRunner().invoke(app, ["reachable", "--tenant", "t", "--db", db, "zed", "--attribute", "supplier",
                                   "--depth", "2", "--fan-out", "1"])
    assert cut.exit_code == 0 and "cut at 1" in cut.output
    bad = CliRunner().invoke(app, ["reachable", "--tenant", "t", "--db", db, "zed", "--attribute", "supplier",
                                   "--depth", "11", "--json"])
    assert bad.exit_code != 0 and "depth" in bad.output


def test_aliases_through_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _sgam(db, "episode", "e1", T1, "MJ is Mira Jansen")
    _sgam(db, "write", "Mira Jansen", "city", "Oslo", "--valid-from", T1, "--source", "e1")
    assert "mj now means mira jansen" in _sgam(db, "alias", "MJ", "Mira Jansen", "--by", "ops")
    assert json.loads(_sgam(db, "get", "mj", "city", "--json"))["value"] == "Oslo"
    page = json.loads(_sgam(db, "names", "mira jansen", "--json"))
    assert [(n["name"], n["subject"], n["until"], n["decided_by"]) for n in page] == [
        ("mj", "mira jansen", None, "ops")]
    assert "ops" in _sgam(db, "names", "MJ")
    assert "no longer means" in _sgam(db, "unalias", "mj")
    assert json.loads(_sgam(db, "get", "mj", "city", "--json")) is None
    again = CliRunner().invoke(app, ["unalias", "--tenant", "t", "--db", db, "mj"])
    assert again.exit_code != 0 and "not an alias" in again.output


def test_a_retract_of_a_one_valued_attribute_with_a_value_is_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _sgam(db, "episode", "e1", T1, "Mira lives in Oslo")
    _sgam(db, "write", "mira", "city", "Oslo", "--valid-from", T1, "--source", "e1")
    refused = CliRunner().invoke(app, ["retract", "--tenant", "t", "--db", db, "mira", "city", "--at",
                                       "2026-06-02T00:00:00Z", "--source", "e1", "--value", "Oslo"])
    assert refused.exit_code == 3 and "value" in refused.output and "one value at a time" in refused.output
    assert json.loads(_sgam(db, "get", "mira", "city", "--json"))["valid_to"] is None


def test_a_narrow_tables_title_is_one_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    _sgam(db, "episode", "e1", T1, "Zed buys from Acme")
    _sgam(db, "declare", "supplier", "subject", "--cardinality", "many")
    _sgam(db, "write", "zed", "supplier", "acme", "--valid-from", T1, "--source", "e1")
    for args in (["reachable", "zed", "--attribute", "supplier", "--depth", "2"], ["linked", "supplier", "acme"]):
        shown = CliRunner().invoke(app, [args[0], "--tenant", "t", "--db", db, *args[1:]], env={"COLUMNS": "80"})
        assert shown.exit_code == 0, shown.output
        title = shown.output.splitlines()[0].strip()
        assert title in ("reachable from zed within 2", "supplier -> acme"), shown.output
