"""``sgam replay`` on mutated scenario files, on both backends: exit 0, 1 or 2 with a
message, never a traceback. Mutations start from the project's own scenarios and replace,
drop, duplicate or nest their parts, write hostile values, or damage the text itself."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sgam.cli import app

from .strategies import EXAMPLES, nested

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").rglob("*.yaml"))
BASES = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in SCENARIOS[:12]]

file_values = st.deferred(lambda: _file_values).map(copy.deepcopy)  # never share a drawn node
_file_values = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**30), st.floats(),
    st.text(st.characters(codec="utf-8"), max_size=20),
    st.sampled_from(["", "\x00", "2026-06-01", "2026-06-01T00:00:00", "validation", "conflict", "e1", "mira",
                     nested(150), nested(99), {"a": nested(50)}, [None], {}, "x" * 70_000]),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, item in node.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found += _paths(item, (*prefix, index))
    return found


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = root
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return root


@st.composite
def scenario_texts(draw: st.DrawFn) -> str:
    data = json.loads(json.dumps(draw(st.sampled_from(BASES)), default=str))
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(_paths(data)))
        action = draw(st.sampled_from(["replace", "drop", "duplicate", "wrap", "add"]))
        target: Any = data
        for part in path:
            target = target[part]
        if action == "replace":
            data = _set(data, path, draw(file_values))
        elif action == "drop" and path:
            parent = _set(data, (), data)
            for part in path[:-1]:
                parent = parent[part]
            del parent[path[-1]]
        elif action == "duplicate" and isinstance(target, list) and target:
            target.append(target[draw(st.integers(0, len(target) - 1))])
        elif action == "wrap":
            data = _set(data, path, [target])
        elif action == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(["error", "tenant", "value", "bogus", "clock"]))] = draw(file_values)
    text = json.dumps(data) if draw(st.booleans()) else yaml.safe_dump(data, allow_unicode=True)
    damage = draw(st.sampled_from(["none", "none", "truncate", "insert", "escape"]))
    if damage == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == "insert":
        at = draw(st.integers(0, len(text)))
        junk = ["[" * 600, "{", ": :", "&a", "*a", "!!python/object", "\t", '"\\ud800"']
        text = text[:at] + draw(st.sampled_from(junk)) + text[at:]
    elif damage == "escape":
        text = text.replace('"e1"', '"e\\ud800"', 1)
    return text


def test_mutated_scenario_files_end_with_a_replay_exit_status(replay_db: str | None, tmp_path: Path) -> None:
    extra: list[str] = []
    examples = EXAMPLES
    if replay_db is not None:  # each scenario gets a fresh database: fewer, slower examples
        extra, examples = ["--db", replay_db], max(EXAMPLES // 8, 5)
    runner = CliRunner()
    count = 0

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(scenario_texts())
    def run(text: str) -> None:
        nonlocal count
        path = tmp_path / "scenario.yaml"
        path.write_text(text, encoding="utf-8")
        result = runner.invoke(app, ["replay", str(path), "--json", *extra])
        count += 1
        exc = result.exception
        assert exc is None or isinstance(exc, SystemExit), f"{type(exc).__name__}: {str(exc)[:300]}"
        assert result.exit_code in (0, 1, 2), result.output[-500:]

    run()
    print(f"\n{'postgres' if extra else 'sqlite'}: {count} fuzzed replay files")
