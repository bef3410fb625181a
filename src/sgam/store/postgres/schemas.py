"""What a PostgreSQL unit of work has read of its tenant's schema (``KnownSchema``), kept
across units of work at one schema version (``SchemaCache``).

A write asks the schema of every attribute it touches; asked of the database, that is a
statement per attribute and unit of work. Every schema change bumps the tenant's version
in its own transaction, so what was read at the version a unit of work sees is still
right for it: it is answered from the shared cache, and a unit of work that changes the
schema neither reads nor fills that cache (what it reads may never commit).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..._core.schema import AttributeSchema, MemoryTypeSchema

SchemaCache = dict[str, tuple[int, dict[str, AttributeSchema | None], dict[str, MemoryTypeSchema | None]]]
"""Per tenant: a schema version and the attribute schemas and memory types read at it."""

S = TypeVar("S", AttributeSchema, MemoryTypeSchema)


class KnownSchema:
    """One unit of work's schema version, attribute schemas and memory types, as read."""

    __slots__ = ("_shared", "_tenant", "attributes", "changed", "types", "version")

    def __init__(self, tenant: str, shared: SchemaCache) -> None:
        self._tenant = tenant
        self._shared = shared
        self.version: int | None = None
        """The version this unit of work sees; None until read (or after ``forget``)."""
        self.changed = False
        """Whether this unit of work changed the schema (bumped its version)."""
        self.attributes: dict[str, AttributeSchema | None] = {}
        self.types: dict[str, MemoryTypeSchema | None] = {}

    def forget(self) -> None:
        """Read everything again: the schema is held exclusively from now on."""
        self.version = None
        self.attributes.clear()
        self.types.clear()

    def bumped(self, version: int) -> int:
        """This unit of work changed the schema: ``version`` is its new version."""
        self.version = version
        self.changed = True
        return version

    def attribute(self, attribute: str, version: Callable[[], int],
                  load: Callable[[str], AttributeSchema | None]) -> AttributeSchema | None:
        """``attribute``'s schema: read before, shared at ``version()``, or ``load``ed."""
        return self._known(self.attributes, 1, attribute, version, load)

    def memory_type(self, name: str, version: Callable[[], int],
                    load: Callable[[str], MemoryTypeSchema | None]) -> MemoryTypeSchema | None:
        """The memory type ``name``: read before, shared at ``version()``, or ``load``ed."""
        return self._known(self.types, 2, name, version, load)

    def _known(self, own: dict[str, S | None], part: int, name: str, version: Callable[[], int],
               load: Callable[[str], S | None]) -> S | None:
        if name in own:
            return own[name]
        shared: dict[str, S | None] | None = None
        if not self.changed:
            at = version()
            entry = self._shared.get(self._tenant)
            if entry is None or entry[0] != at:
                entry = (at, {}, {})
                self._shared[self._tenant] = entry
            shared = entry[part]  # type: ignore[assignment]
        if shared is not None and name in shared:
            own[name] = shared[name]
        else:
            own[name] = load(name)
            if shared is not None:
                shared[name] = own[name]
        return own[name]
