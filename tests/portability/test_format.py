"""The documented JSON Schema is the one the format is made of, and exports follow it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from sgam import Memory
from sgam.portability.schema import json_schema
from tests.conftest import ManualClock

from .test_bad_input import TENANT, fill

DOCUMENTED = Path(__file__).resolve().parents[2] / "docs" / "portability.schema.json"


def test_the_documented_schema_is_the_formats_own() -> None:
    assert json.loads(DOCUMENTED.read_text(encoding="utf-8")) == json_schema()


def test_every_line_of_an_export_follows_the_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)
    path = tmp_path / "acme.jsonl"
    with Memory(f"sqlite:///{tmp_path / 'a.db'}", clock=ManualClock()) as memory:
        fill(memory)
        memory.documents.create(TENANT, "/memories/notes.md", "first line\n")
        memory.export_tenant(TENANT, path)
    validator = jsonschema.Draft202012Validator(json_schema())
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 10
    for line in lines:
        validator.validate(json.loads(line))
    broken = json.loads(lines[3])
    broken["row"]["unknown"] = 1
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)
