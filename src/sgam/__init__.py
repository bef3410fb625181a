"""sgam: schema-guided agent memory — typed, bitemporal, tenant-scoped facts with provenance."""

from ._errors import (
    BusyError,
    ConflictError,
    NotFoundError,
    SchemaVersionError,
    SgamError,
    StoreError,
    UnsafeDatabaseError,
    ValidationError,
)
from ._memory import DEFAULT_URL, Memory
from ._model import Assertion, Episode, Fact, ForgetResult, WriteResult
from ._rules import Effect
from ._schema import AttributeSchema, MemoryTypeSchema, ValueType

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_URL",
    "Assertion",
    "AttributeSchema",
    "BusyError",
    "ConflictError",
    "Effect",
    "Episode",
    "Fact",
    "ForgetResult",
    "Memory",
    "MemoryTypeSchema",
    "NotFoundError",
    "SchemaVersionError",
    "SgamError",
    "StoreError",
    "UnsafeDatabaseError",
    "ValidationError",
    "ValueType",
    "WriteResult",
]
