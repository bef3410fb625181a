"""sgam: schema-guided agent memory — typed, bitemporal, tenant-scoped facts with provenance.

The public names are imported on first use (PEP 562): ``import sgam.cli`` for
``sgam --help``, or any one submodule, does not load the whole library (search, numpy,
httpx, the stores) before it is needed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from ._model import Assertion, Episode, Fact, ForgetResult, Page, Reachable, SubjectName, WriteResult
    from ._rules import Effect
    from ._schema import AttributeSchema, Cardinality, MemoryTypeSchema, ValueType
    from .recall import Citation, RecallItem, RecallResult
    from .search import Embedder, EvidenceHit, Model2VecEmbedder, OpenAIEmbedder, SearchConfig, WordLlamaEmbedder

__version__ = "0.1.0"

_HOMES = {
    "Action": "._actions",
    "ActionInDoubt": "._errors",
    "Assertion": "._model",
    "AsyncMemory": "._async",
    "AttributeSchema": "._schema",
    "BusyError": "._errors",
    "Cardinality": "._schema",
    "Citation": ".recall",
    "ConflictError": "._errors",
    "DEFAULT_URL": "._memory",
    "DeniedError": "._errors",
    "Effect": "._rules",
    "Embedder": ".search",
    "Episode": "._model",
    "EvidenceHit": ".search",
    "Fact": "._model",
    "ForgetResult": "._model",
    "Memory": "._memory",
    "MemoryTypeSchema": "._schema",
    "Model2VecEmbedder": ".search",
    "ModelError": "._errors",
    "NotFoundError": "._errors",
    "OpenAIEmbedder": ".search",
    "Page": "._model",
    "Reachable": "._model",
    "RecallItem": ".recall",
    "RecallResult": ".recall",
    "Reconciled": "._actions",
    "SchemaVersionError": "._errors",
    "SearchConfig": ".search",
    "SgamError": "._errors",
    "StoreError": "._errors",
    "SubjectName": "._model",
    "UnsafeDatabaseError": "._errors",
    "ValidationError": "._errors",
    "ValueType": "._schema",
    "WordLlamaEmbedder": ".search",
    "WriteResult": "._model",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'sgam' has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


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
    "SubjectName",
    "UnsafeDatabaseError",
    "ValidationError",
    "ValueType",
    "WordLlamaEmbedder",
    "WriteResult",
]
