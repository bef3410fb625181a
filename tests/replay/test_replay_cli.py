"""``sgam replay``: exit statuses, messages for unusable files, and the ``--json`` shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam.cli import app

HEADER = "name: {name}\ntenant: acme\nsteps:\n"
GOOD_STEPS = """\
  - clock: 2026-07-01T00:00:00Z
  - episode: {id: e1, at: 2026-06-01T00:00:00Z, text: "city Paris"}
  - write: {subject: mira, attribute: city, value: Paris, valid_from: 2026-06-01T00:00:00Z, source: e1}
"""


def scenario(folder: Path, filename: str, body: str, name: str = "a scenario") -> Path:
    path = folder / filename
    path.write_text(HEADER.format(name=name) + body, encoding="utf-8")
    return path


def replay(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["replay", *args])
    return result.exit_code, result.stdout, result.stderr


def test_not_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\nsteps: {\n", encoding="utf-8")
    code, _, err = replay(str(path))
    assert code == 2
    assert str(path) in err
    assert "YAML" in err


# (file name, steps after the good ones, step number in the message, words in it)
MALFORMED = [
    ("unknown_op.yaml", "  - frobnicate: {subject: mira}\n", 4, "unknown operation 'frobnicate'"),
    ("missing_field.yaml",
     "  - write: {subject: mira, attribute: city, value: Rome, valid_from: 2026-06-05T00:00:00Z}\n",
     4, "missing field 'source'"),
    ("two_ops.yaml",
     ("  - expect: {subject: mira, attribute: city, value: Paris}\n"
     "    forget: {subject: mira}\n"), 4, "exactly one operation"),
    ("clock_back.yaml", "  - clock: 2026-06-30T23:59:59Z\n", 4, "clock may not move back"),
    ("unknown_error.yaml",
     ("  - write: {subject: mira, attribute: city, value: Rome, valid_from: 2026-06-01T00:00:00Z, source: e1}\n"
     "    error: collision\n"), 4, "collision"),
    ("step_not_mapping.yaml", "  - just a string\n", 4, "mapping"),
    ("forget_both.yaml", "  - forget: {subject: mira, episode: e1}\n", 4, "exactly one of subject or episode"),
    ("unknown_field.yaml", "  - expect: {subject: mira, attribute: city, value: Paris, colour: red}\n",
     4, "unknown field 'colour'"),
    ("naive_clock.yaml", "  - clock: 2026-07-02T00:00:00\n", 4, "zone"),
]


@pytest.mark.parametrize(("filename", "extra", "step", "words"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_step_names_file_and_step(tmp_path: Path, filename: str, extra: str, step: int,
                                            words: str) -> None:
    path = scenario(tmp_path, filename, GOOD_STEPS + extra)
    code, out, err = replay(str(path))
    assert code == 2, out + err
    assert f"{path}, step {step}:" in err
    assert words in err


def test_steps_not_a_list(tmp_path: Path) -> None:
    path = tmp_path / "steps_mapping.yaml"
    path.write_text("name: x\ntenant: acme\nsteps:\n  clock: 2026-07-01T00:00:00Z\n", encoding="utf-8")
    code, _, err = replay(str(path))
    assert code == 2
    assert str(path) in err and "steps must be a list" in err


@pytest.mark.parametrize("missing", ["name", "tenant", "steps"])
def test_missing_top_level_field(tmp_path: Path, missing: str) -> None:
    fields = {"name": "name: x\n", "tenant": "tenant: acme\n", "steps": "steps: []\n"}
    path = tmp_path / f"no_{missing}.yaml"
    path.write_text("".join(text for key, text in fields.items() if key != missing), encoding="utf-8")
    code, _, err = replay(str(path))
    assert code == 2
    assert str(path) in err and repr(missing) in err


def test_a_bad_file_in_a_folder_is_reported_and_the_others_still_run(tmp_path: Path) -> None:
    scenario(tmp_path, "a_good.yaml", GOOD_STEPS, name="good one")
    (tmp_path / "nested").mkdir()
    bad = scenario(tmp_path / "nested", "b_bad.yaml", "  - nope: {}\n")
    scenario(tmp_path, "c_good.yaml", GOOD_STEPS, name="after the bad one")
    code, out, err = replay(str(tmp_path))
    assert code == 2
    assert f"{bad}, step 1:" in err
    assert "PASS good one" in out and "PASS after the bad one" in out
    assert "2 passed, 0 failed, 1 unusable file" in out


def test_bad_files_are_part_of_the_json_report(tmp_path: Path) -> None:
    scenario(tmp_path, "a_good.yaml", GOOD_STEPS)
    bad = scenario(tmp_path, "b_bad.yaml", "  - nope: {}\n")
    code, out, err = replay(str(tmp_path), str(tmp_path / "missing.yaml"), "--json")
    assert code == 2 and err == ""
    report = json.loads(out)
    assert report["passed"] == 1
    assert [(b["file"], b["step"]) for b in report["bad_files"]] == [
        (str(tmp_path / "missing.yaml"), None), (str(bad), 1)]
    assert "unknown operation 'nope'" in report["bad_files"][1]["message"]


def test_missing_path_is_a_file_error(tmp_path: Path) -> None:
    code, _, err = replay(str(tmp_path / "nowhere.yaml"))
    assert code == 2
    assert "nowhere.yaml" in err


def test_json_output_shape_and_exit_1_on_a_failed_expectation(tmp_path: Path) -> None:
    scenario(tmp_path, "1_pass.yaml", GOOD_STEPS + "  - expect: {subject: mira, attribute: city, value: Paris}\n",
             name="passes")
    failing = scenario(
        tmp_path, "2_fail.yaml",
        GOOD_STEPS
        + "  - expect: {subject: mira, attribute: city, value: Rome}\n"
        + "  - write: {subject: mira, attribute: city, value: Oslo, valid_from: 2026-06-01T00:00:00Z, source: e1}\n"
        + "    error: not_found\n",
        name="fails",
    )
    code, out, _ = replay(str(tmp_path), "--json")
    assert code == 1
    report = json.loads(out)
    assert set(report) == {"passed", "failed", "scenarios", "bad_files"}
    assert (report["passed"], report["failed"]) == (1, 1)
    assert [s["name"] for s in report["scenarios"]] == ["passes", "fails"]
    for entry in report["scenarios"]:
        assert set(entry) == {"file", "name", "passed", "failures"}
    first, second = report["scenarios"]
    assert first["passed"] is True and first["failures"] == []
    assert second["passed"] is False and second["file"] == str(failing)
    assert [f["step"] for f in second["failures"]] == [4, 5]
    for failure in second["failures"]:
        assert set(failure) == {"step", "expected", "actual"}
    assert second["failures"][0]["expected"] == {"value": "Rome"}
    assert second["failures"][0]["actual"] == {"value": "Paris"}
    assert second["failures"][1]["expected"] == {"error": "not_found"}
    assert "conflict" in second["failures"][1]["actual"]


def test_text_output_and_exit_0(tmp_path: Path) -> None:
    path = scenario(tmp_path, "ok.yaml", GOOD_STEPS + "  - expect: {subject: mira, attribute: city, value: Paris}\n",
                    name="all good")
    code, out, _ = replay(str(path))
    assert code == 0
    assert f"PASS all good  {path}" in out
    assert "1 passed, 0 failed" in out


def test_text_output_lists_failed_steps(tmp_path: Path) -> None:
    path = scenario(tmp_path, "ko.yaml", GOOD_STEPS + "  - expect: {subject: mira, attribute: city, value: Rome}\n",
                    name="not good")
    code, out, _ = replay(str(path))
    assert code == 1
    assert f"FAIL not good  {path}" in out
    assert 'step 4: expected {"value": "Rome"}, found {"value": "Paris"}' in out


def test_json_scenario_file(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps({
        "name": "json file", "tenant": "acme",
        "steps": [{"clock": "2026-07-01T00:00:00Z"},
                  {"expect": {"subject": "mira", "attribute": "city", "value": None}}],
    }), encoding="utf-8")
    code, out, _ = replay(str(path), "--json")
    assert code == 0
    assert json.loads(out)["passed"] == 1


@pytest.mark.parametrize(("body", "key"), [
    (("  - write: {subject: mira, attribute: city, value: Rome, valid_from: 2026-06-05T00:00:00Z, source: e1}\n"
     "    write: {subject: mira, attribute: city, value: Oslo, valid_from: 2026-06-06T00:00:00Z, source: e1}\n"),
     "write"),
    (("  - write: {subject: mira, attribute: city, value: Rome, value: Oslo, valid_from: 2026-06-05T00:00:00Z,"
     " source: e1}\n"), "value"),
])
def test_duplicate_keys_are_a_file_error(tmp_path: Path, body: str, key: str) -> None:
    """PyYAML would keep the last of two equal keys and silently drop an operation."""
    path = scenario(tmp_path, "dup.yaml", GOOD_STEPS + body)
    code, _, err = replay(str(path))
    assert code == 2
    assert str(path) in err and f"duplicate key '{key}'" in err and "line 7" in err


def test_names_and_paths_that_look_like_markup_are_printed_literally(tmp_path: Path) -> None:
    """Scenario names and folders are the user's text, not console markup (which crashed)."""
    folder = tmp_path / "[wip]"
    folder.mkdir()
    path = scenario(folder, "a.yaml", GOOD_STEPS, name='"[/bold] odd [red]name"')
    code, out, _ = replay(str(path))
    assert code == 0
    assert f"PASS [/bold] odd [red]name  {path}" in out


def test_an_integer_too_large_to_read_is_a_file_error(tmp_path: Path) -> None:
    path = scenario(tmp_path, "huge.yaml", GOOD_STEPS + "  - expect: {subject: mira, attribute: city, value: "
                    + "9" * 5000 + "}\n")
    code, _, err = replay(str(path))
    assert code == 2
    assert str(path) in err and "too large" in err and "line 7" in err
