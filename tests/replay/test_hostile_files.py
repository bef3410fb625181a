"""Scenario files built to break the loader: each is a file error (exit 2) with a message
that names the file, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam.cli import app

HEADER = "name: hostile\ntenant: acme\nsteps:\n"

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8)
)

FILES = {
    "600 nested brackets": HEADER + "  - write: " + "[" * 600 + "]" * 600 + "\n",
    "600 nested json": '{"name": "n", "tenant": "t", "steps": ' + "[" * 600 + "]" * 600 + "}",
    "300 nested flow mappings": HEADER + "  - episode: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
    "error is a list": HEADER + "  - {clock: 2026-07-01T00:00:00Z, error: [a]}\n",
    "error is a mapping": HEADER + "  - {clock: 2026-07-01T00:00:00Z, error: {a: 1}}\n",
    "keys of mixed types": "name: n\ntenant: t\nsteps: []\n1: a\nb: c\n",
    "step fields of mixed types": HEADER + "  - forget: {1: a, b: c}\n",
    "alias bomb": "name: n\ntenant: t\nsteps: []\n" + BOMB,
    "recursive alias": "name: n\ntenant: t\nsteps: &s [*s]\n",
    "operation key is a number": HEADER + "  - {7: x}\n",
}


@pytest.mark.parametrize("body", FILES.values(), ids=FILES.keys())
def test_a_hostile_file_is_a_file_error(tmp_path: Path, body: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(body, encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr
    assert len(result.stderr) < 2_000


def test_a_value_deeper_than_values_may_be_is_a_step_validation_error(tmp_path: Path) -> None:
    """Within the file's bound, depth is a property of the value: the step fails with
    ``validation``, which a scenario may expect."""
    value = "[" * 150 + "1" + "]" * 150
    body = HEADER + (
        "  - episode: {id: e1, at: 2026-06-01T00:00:00Z, text: t}\n"
        f"  - write: {{subject: s, attribute: a, value: {value}, valid_from: 2026-06-01T00:00:00Z, source: e1}}\n"
        "    error: validation\n"
    )
    path = tmp_path / "deep.yaml"
    path.write_text(body, encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("as_json", [True, False])
def test_lone_surrogates_from_a_file_are_reported_escaped(tmp_path: Path, as_json: bool) -> None:
    """YAML reads ``"\\ud800"`` as a lone surrogate: the report must still be written."""
    path = tmp_path / "surrogates.yaml"
    path.write_text('name: "bad \\ud800 name"\ntenant: acme\nsteps:\n  - clock: "2026-07-01T00:00:00Z"\n'
                    '  - expect: {subject: mira, attribute: diet, value: "\\udc00"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), *(["--json"] if as_json else [])])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    assert "\\ud800" in result.stdout and "\\udc00" in result.stdout


def test_a_path_with_undecodable_bytes_is_a_file_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "\udcff.yaml")])
    assert result.exit_code == 2 and "\\udcff" in result.stderr
