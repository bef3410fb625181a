"""The package's dependencies point one way: no import cycle inside ``sgam``.

Every import statement counts, also those inside functions (a lazy import is still a
dependency); only imports under ``if TYPE_CHECKING:`` are left out, since they never run.
Importing ``sgam.a.b`` also runs ``sgam/a/__init__.py``, so the packages a module lives
in count as dependencies too, except the importer's own packages (already being run).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "sgam"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _packages(name: str) -> set[str]:
    """``sgam.a.b`` itself and the packages importing it runs (``sgam.a``; ``sgam`` is
    left out: every module is inside it)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(2, len(parts) + 1)} & set(MODULES)


def dependencies(name: str) -> set[str]:
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    own = _packages(package)
    targets: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            bases = [alias.name for alias in node.names]
            names: list[str] = []
        else:
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            bases = [base]
            names = [alias.name for alias in node.names]
        for base in bases:
            if not base.startswith("sgam"):
                continue
            targets |= _packages(base) - own
            targets |= {f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES}
    targets.discard(name)
    return targets


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {name: dependencies(name) for name in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            connect(name)
    return found


def test_the_import_graph_reads_lazy_and_relative_imports() -> None:
    assert "sgam.store._protocol" in dependencies("sgam.store._backend")
    assert "sgam.store.sqlite.search" in dependencies("sgam.store.sqlite.backend")  # lazy, inside a method
    assert "sgam.store" not in dependencies("sgam.store.sqlite.backend")  # its own package
    assert "sgam.store" in dependencies("sgam.search.service")  # another package runs first


def test_no_import_cycle_inside_sgam() -> None:
    assert cycles() == []
