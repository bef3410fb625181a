"""``sgam replay --keep``: one scenario's store kept where ``--db`` says, to inspect or
export; more than one scenario, no ``--db`` or a store already holding its tenant are
refused."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sgam import Memory
from sgam.cli.app import app
from tests.conftest import Store

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
RENAME = SCENARIOS / "schema" / "01_rename.yaml"


def test_a_kept_scenario_store_can_be_read_and_exported(store: Store, tmp_path: Path) -> None:
    runner = CliRunner()
    kept = runner.invoke(app, ["replay", str(RENAME), "--keep", "--db", store.url])
    assert kept.exit_code == 0, kept.output
    with Memory(store.url) as memory:
        assert memory.schema_history("acme")
    exported = runner.invoke(app, ["export", "-t", "acme", str(tmp_path / "acme.jsonl"), "--db", store.url, "--json"])
    assert exported.exit_code == 0, exported.output
    again = runner.invoke(app, ["replay", str(RENAME), "--keep", "--db", store.url])
    assert again.exit_code == 2 and "already holds data" in again.output


def test_keep_takes_one_scenario_and_a_database(tmp_path: Path) -> None:
    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'kept.db'}"
    several = runner.invoke(app, ["replay", str(SCENARIOS / "schema"), "--keep", "--db", url])
    assert several.exit_code == 2 and "exactly one scenario file" in several.output
    nowhere = runner.invoke(app, ["replay", str(RENAME), "--keep"])
    assert nowhere.exit_code == 2 and "--db" in nowhere.output
