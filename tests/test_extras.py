"""An extra must install what the docs that name it import.

`pip install 'sgam[langgraph]'` is all docs/langgraph.md asks for; its example
(examples/publish_once, SQLite checkpoints by default) must then import. The test reads
the installed metadata, so it checks the extra as published, not this environment."""

from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "publish_once"


def _closure(extra: str) -> set[str]:
    """Every distribution that installing ``sgam[extra]`` brings, by canonical name."""
    seen: set[str] = set()
    sgam_extras = {extra}
    pending: list[tuple[str, frozenset[str]]] = [("sgam", frozenset({extra}))]
    while pending:
        name, extras = pending.pop()
        seen.add(canonicalize_name(name))
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not any(marker.evaluate({"extra": wanted}) for wanted in extras | {""}):
                continue
            if canonicalize_name(requirement.name) == "sgam":
                new = requirement.extras - sgam_extras
                sgam_extras |= new
                pending.append(("sgam", frozenset(new)))
            elif canonicalize_name(requirement.name) not in seen:
                pending.append((requirement.name, frozenset(requirement.extras)))
    return seen


def _top_level_imports(source: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


def test_langgraph_extra_installs_what_the_sqlite_example_imports() -> None:
    installed = _closure("langgraph")
    providers = metadata.packages_distributions()
    local = {path.stem for path in EXAMPLE.glob("*.py")} | {"sgam"}
    imported = set()
    for path in EXAMPLE.glob("*.py"):
        imported |= _top_level_imports(path.read_text())
    postgres_only = {"langgraph.checkpoint.postgres"}
    missing = []
    for module in sorted(imported - postgres_only):
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or top in local or top == "__future__":
            continue
        if module.startswith("langgraph.checkpoint.sqlite"):
            names = {"langgraph-checkpoint-sqlite"}
        else:
            names = {canonicalize_name(name) for name in providers.get(top, [])}
        if not names & installed:
            missing.append(module)
    assert "langgraph-checkpoint-sqlite" in installed
    assert not missing, f"sgam[langgraph] does not install what the example imports: {missing}"
