"""sgam: schema-guided agent memory — typed, bitemporal, tenant-scoped facts with provenance."""

from ._actions import Action, Reconciled
from ._async import AsyncMemory
from ._errors import (
    ActionInDoubt,
    BusyError,
    ConflictError,
    DeniedError,
    ModelError,
    NotFoundError,
    SchemaVersionError,
    SgamError,
    StoreError,
    UnsafeDatabaseError,
    ValidationError,
)
from ._memory import DEFAULT_URL, Memory
from ._model import Assertion, Episode, Fact, ForgetResult, Page, Reachable, WriteResult
from ._rules import Effect
from ._schema import AttributeSchema, Cardinality, MemoryTypeSchema, ValueType
from .recall import Citation, RecallItem, RecallResult
from .search import Embedder, EvidenceHit, Model2VecEmbedder, OpenAIEmbedder, SearchConfig, WordLlamaEmbedder

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_URL",
    "Action",
    "ActionInDoubt",
    "Assertion",
    "AsyncMemory",
    "AttributeSchema",
    "BusyError",
    "Cardinality",
    "Citation",
    "ConflictError",
    "DeniedError",
    "Effect",
    "Embedder",
    "Episode",
    "EvidenceHit",
    "Fact",
    "ForgetResult",
    "Memory",
    "MemoryTypeSchema",
    "Model2VecEmbedder",
    "ModelError",
    "NotFoundError",
    "OpenAIEmbedder",
    "Page",
    "Reachable",
    "RecallItem",
    "RecallResult",
    "Reconciled",
    "SchemaVersionError",
    "SearchConfig",
    "SgamError",
    "StoreError",
    "UnsafeDatabaseError",
    "ValidationError",
    "ValueType",
    "WordLlamaEmbedder",
    "WriteResult",
]
