"""The package's dependencies point one way.

Two graphs of ``sgam``'s modules are read from the source. The run-time graph counts
every import statement, also those inside functions (a lazy import is still a
dependency), but not those under ``if TYPE_CHECKING:``, which never run. The full graph
counts those too, since a module that names another in its types depends on its shape.
Neither may have a cycle: a circle closed only through a type-only or a lazy import is
still a circle, and is cut along a seam (a type moved to the module both need, a
protocol the lower module names instead of the higher one). The full graph must also
keep the rules in ``RULES`` (what must never import what). Today's exceptions are listed,
each with its reason, in ``ALLOWED``; an entry that no longer occurs fails too, so the
list only shrinks.

Importing ``sgam.a.b`` also runs ``sgam/a/__init__.py``, so the packages a module lives
in count as dependencies too, except the importer's own packages (already being run).
Importing the name ``Memory`` (or ``AsyncMemory``) from anywhere, the lazy package root
included, depends on the module that defines it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
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


def _imports(tree: ast.AST, type_checking: bool) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node):
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


NAMED = {"Memory": "sgam.memory.facade", "AsyncMemory": "sgam.memory.asynchronous"}
"""Public names whose import is a dependency on their module, whatever it is imported from."""


def dependencies(name: str, *, type_checking: bool = False) -> set[str]:
    """The modules ``name`` imports: at run time, or (``type_checking``) also in types."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    own = _packages(package)
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(), str(path)), type_checking):
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
            targets |= {NAMED[n] for n in names if n in NAMED}
    targets.discard(name)
    return targets


RUNTIME = {name: dependencies(name) for name in MODULES}
FULL = {name: dependencies(name, type_checking=True) for name in MODULES}


def cycles(graph: dict[str, set[str]] = RUNTIME) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
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
    assert "sgam.store.contract" in dependencies("sgam.store._backend")
    assert "sgam.store.sqlite.search" in dependencies("sgam.store.sqlite.backend")  # lazy, inside a method
    assert "sgam.store" not in dependencies("sgam.store.sqlite.backend")  # its own package
    assert "sgam.store" in dependencies("sgam.search.service")  # another package runs first


def _cycle_path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One circle through ``component`` (a strongly connected one), first module repeated
    at the end: what to read to see where to cut."""
    members, start = set(component), component[0]
    previous: dict[str, str] = {}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for target in sorted(graph[node] & members):
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [start, *reversed(path[:-1]), start]
            if target not in previous:
                previous[target] = node
                todo.append(target)
    raise AssertionError(f"no circle through {component}")


def _describe(graph: dict[str, set[str]]) -> str:
    return "\n".join(" -> ".join(_cycle_path(graph, component)) for component in cycles(graph))


def test_cycles_are_reported_as_a_path() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert _describe(graph) == "a -> b -> c -> a"


def test_no_import_cycle_inside_sgam() -> None:
    assert cycles() == [], f"import circles at run time (lazy imports included):\n{_describe(RUNTIME)}"


def test_no_import_cycle_counting_type_checking_imports() -> None:
    assert cycles(FULL) == [], f"import circles counting TYPE_CHECKING imports:\n{_describe(FULL)}"


def _within(*prefixes: str) -> Callable[[str], bool]:
    """Whether a module is one of ``prefixes`` or inside one of them."""
    return lambda name: any(name == p or name.startswith(p + ".") for p in prefixes)


LAYERS: list[tuple[str, Callable[[str], bool]]] = [
    ("the domain", _within("sgam._core")),
    ("the store", _within("sgam.store")),
    ("the units of work", _within("sgam.ledger.write", "sgam.ledger.records", "sgam.ledger.derivation",
                                  "sgam.ledger.aliases", "sgam.ledger.migrations", "sgam.ledger.backfill",
                                  "sgam.ledger.dual_read", "sgam.ledger.screening", "sgam.ledger.relations",
                                  "sgam.ledger.sets", "sgam.ledger.schema_at", "sgam.ledger.families")),
    ("the lifecycle", _within("sgam.lifecycle")),
    ("search", _within("sgam.search")),
    ("the ledger service", _within("sgam.ledger")),
    ("the features", _within("sgam.documents", "sgam.recall", "sgam.extraction", "sgam.items",
                              "sgam.portability")),
    ("the boundary", _within("sgam.boundary")),
    ("the facade", _within("sgam.memory")),
    ("tools and keys", _within("sgam.tools", "sgam.access")),
    ("the surfaces", _within("sgam.cli", "sgam.server", "sgam.replay", "sgam.eval", "sgam.langgraph")),
]
"""The layers, bottom first: a module imports nothing of a layer above its own, counting
TYPE_CHECKING imports. The first match places a module, so ``ledger/``'s units of work
sit below the lifecycle that re-derives with them, and its service (``Ledger``, the action
ledger) above the search it holds. Package ``__init__`` modules hold only docstrings or
re-exports; ``sgam`` itself (the lazy root) is in none."""


def layer_of(name: str) -> int | None:
    if name == "sgam.ledger":
        return 2  # the package: importing any of its modules runs it
    return next((index for index, (_, within) in enumerate(LAYERS) if within(name)), None)


FACADE = _within("sgam.memory")
"""``Memory``, the parts it is made of, and its async twin."""
SURFACES = LAYERS[-1][1]
"""The skins over ``Memory``; they may import anything below them."""
SQLITE, POSTGRES = _within("sgam.store.sqlite"), _within("sgam.store.postgres")
FEATURES = _within("sgam.documents", "sgam.extraction", "sgam.items", "sgam.langgraph", "sgam.ledger.actions")
"""What erasure and expiry reach only through participants, never by name (item keys are
pure, but LangGraph's)."""


def test_every_module_has_a_layer() -> None:
    assert [name for name in MODULES if name != "sgam" and layer_of(name) is None] == []


@dataclass(frozen=True)
class Rule:
    """Modules ``importer`` accepts must never import one ``target`` accepts (full graph)."""

    name: str
    importer: Callable[[str], bool]
    target: Callable[[str], bool]


RULES = [
    Rule("the planner imports only errors and time", _within("sgam._core.rules"),
         lambda t: t not in {"sgam._core", "sgam._core.errors", "sgam._core.time"}),
    Rule("no backend imports another", SQLITE, POSTGRES),
    Rule("no backend imports another", POSTGRES, SQLITE),
    Rule("nothing below the facade names Memory",
         lambda m: m != "sgam" and (layer_of(m) or 0) < (layer_of("sgam.memory") or 0), FACADE),
    Rule("nothing but a surface imports a surface", lambda m: not SURFACES(m), SURFACES),
    Rule("erasure and expiry know no feature by name", _within("sgam.lifecycle"), FEATURES),
]

ALLOWED: dict[tuple[str, str, str], str] = {
}
"""Today's breaches of ``RULES`` and of the layers: (rule, importer, target) → what the
import is for."""


def breaches() -> set[tuple[str, str, str]]:
    found = {(rule.name, module, target) for rule in RULES for module in MODULES if rule.importer(module)
             for target in FULL[module] if rule.target(target)}
    for module in MODULES:
        below = layer_of(module)
        found |= {("a layer imports nothing above it", module, target) for target in FULL[module]
                  if below is not None and (layer_of(target) or 0) > below}
    return found


def test_the_full_graph_counts_type_checking_imports() -> None:
    assert "sgam.memory.facade" not in dependencies("sgam.tools.memory_tool")  # under TYPE_CHECKING only
    assert "sgam.memory.facade" in dependencies("sgam.tools.memory_tool", type_checking=True)
    assert "sgam.memory.facade" in dependencies("sgam.access")  # the name Memory
    assert "sgam.memory.facade" in FULL["sgam.server.idempotency"]


def test_no_module_breaks_the_rules_beyond_the_listed_exceptions() -> None:
    found = breaches()
    assert sorted(found - set(ALLOWED)) == [], "a new import breaks the layering rules"
    assert sorted(set(ALLOWED) - found) == [], "an allowed exception no longer occurs: delete it from ALLOWED"
