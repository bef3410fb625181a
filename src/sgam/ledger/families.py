"""Families of names: the names recorded steps joined, and what a name means through them.

An alias step joins a subject name to another; a rename joins an attribute name to its
new one. A step, an erasure and a backfill re-derive a whole family together (every
name ever joined to the ones they touch, transitively), and a derivation resolves each
name it meets along the edges in force.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from .._core.errors import ConflictError
from ..store import AliasRow, ChangeRow


def resolve(edges: dict[str, str], name: str) -> str:
    """Follow rename or alias edges from ``name`` (steps refuse cycles)."""
    seen = {name}
    while name in edges:
        name = edges[name]
        if name in seen:  # pragma: no cover - a cycle is refused when it would be made
            raise ConflictError(f"a cycle of names through {name!r}", field="name", value=name)
        seen.add(name)
    return name


def joined(edges: Iterable[tuple[str, str]], names: Iterable[str]) -> set[str]:
    """``names`` and every name the ``edges`` (aliases, renames) ever joined to them,
    transitively: the family a step or an erasure re-derives together."""
    pairs = list(edges)
    found = set(names)
    grew = True
    while grew:
        grew = False
        for one, other in pairs:
            if (one in found) != (other in found):
                found.update((one, other))
                grew = True
    return found


def renamed_family(changes: Sequence[ChangeRow], attributes: Iterable[str]) -> set[str]:
    """``attributes`` and every name a rename has ever joined to them."""
    return joined(((c.attribute, str(json.loads(c.detail)["to"])) for c in changes if c.kind == "rename"), attributes)


def alias_family(steps: Iterable[AliasRow], names: Iterable[str]) -> set[str]:
    """``names`` and every subject name an alias step has ever joined to them."""
    return joined(((step.name, step.subject) for step in steps), names)
