"""The tenant's schema: declared attributes and memory types, read by every write that
validates a value and changed by the steps that evolve it."""

from __future__ import annotations

from typing import Protocol

from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .scope import Scope


class SchemaReads(Scope, Protocol):
    def attribute_schemas(self) -> list[AttributeSchema]: ...
    def memory_types(self) -> list[MemoryTypeSchema]: ...


class SchemaLookups(Scope, Protocol):
    """What validating a value against the tenant's schema asks."""

    def attribute_schema(self, attribute: str) -> AttributeSchema | None: ...
    def memory_type(self, name: str) -> MemoryTypeSchema | None: ...


class SchemaWrites(SchemaLookups, Protocol):
    def hold_schema(self) -> None:
        """Hold the tenant's schema for a step that changes it: wait until every unit of
        work that has read it ends, and make those that read it later wait until this one
        ends, so that a write validates against the schema its transaction commits beside
        and an operation a step covers was recorded before it. Asked first in a step."""
        ...
    def schema_version(self) -> int: ...
    def bump_schema_version(self) -> int: ...
    def put_attribute_schema(self, schema: AttributeSchema) -> None: ...
    def put_memory_type(self, schema: MemoryTypeSchema) -> None: ...
