"""Replay against PostgreSQL runs each scenario in a fresh database (the project's and the
spec's scenarios run on both backends in their own tests)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import PostgresUrls

from sgam.cli.replay import run_files

SCENARIO = """
name: correction and erasure on postgres
tenant: acme
steps:
  - clock: "2026-06-01T00:00:00Z"
  - episode: {id: e1, at: "2026-06-01T00:00:00Z", text: "deadline July 15"}
  - episode: {id: e2, at: "2026-06-02T00:00:00Z", text: "deadline June 30"}
  - write: {subject: mira, attribute: deadline, value: "2026-07-15", valid_from: "2026-06-01T00:00:00Z", source: e1}
  - clock: "2026-06-02T00:00:00Z"
  - write: {subject: mira, attribute: deadline, value: "2026-06-30", valid_from: "2026-06-02T00:00:00Z", source: e2}
  - expect: {subject: mira, attribute: deadline, value: "2026-06-30"}
  - write: {subject: mira, attribute: deadline, value: "x", valid_from: "2026-06-02T00:00:00Z", source: e2}
    error: conflict
  - forget: {episode: e2}
  - expect: {subject: mira, attribute: deadline, value: "2026-07-15"}
  - expect: {subject: mira, attribute: deadline, value: null}
    tenant: globex
"""


def test_replay_on_postgres(postgres_urls: PostgresUrls, tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    results = run_files([scenario], postgres_urls.server_admin)
    assert results and all(result.passed for result in results), [r.to_dict() for r in results]
