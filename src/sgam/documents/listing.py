"""A directory's listing as the memory tool's ``view`` shows it: files and directories
below a path up to a depth, by name at each level, each with its size in bytes."""

from __future__ import annotations

from typing import Any

from ..store import DocumentRow
from ._model import Entry


def entries(rows: list[DocumentRow], path: str, depth: int, hidden: bool) -> list[Entry]:
    """The entries ``rows`` (the live documents below ``path``) make, up to ``depth``
    levels (directories first listed, then their contents); names starting with '.' left
    out, with everything below them, unless ``hidden``."""
    tree: dict[str, Any] = {}
    for row in rows:
        parts = row.path[len(path) + 1:].split("/")
        if not hidden and any(part.startswith(".") for part in parts[:depth]):
            continue
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = row.size
    found: list[Entry] = []
    _walk(tree, path, 1, depth, found)
    return found


def _walk(tree: dict[str, Any], base: str, level: int, depth: int, out: list[Entry]) -> None:
    for name in sorted(tree):
        node = tree[name]
        if isinstance(node, dict):
            out.append(Entry(f"{base}/{name}", True, _size(node)))
            if level < depth:
                _walk(node, f"{base}/{name}", level + 1, depth, out)
        else:
            out.append(Entry(f"{base}/{name}", False, node))


def _size(tree: dict[str, Any]) -> int:
    return sum(_size(node) if isinstance(node, dict) else node for node in tree.values())
