"""sgam: schema-guided agent memory — typed, bitemporal, tenant-scoped facts with provenance.

The public names are imported on first use (PEP 562): ``import sgam.cli`` for
``sgam --help``, or any one submodule, does not load the whole library (search, numpy,
httpx, the stores) before it is needed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core.errors import (
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
    from ._core.model import (
        Assertion,
        AuditEntry,
        Backfill,
        ConsentState,
        Episode,
        ErasurePreview,
        Fact,
        ForgetResult,
        IndexStatus,
        Key,
        Page,
        PurgeResult,
        Quarantined,
        Reachable,
        Residue,
        SchemaChange,
        SubjectName,
        WriteResult,
    )
    from ._core.rules import Effect
    from ._core.schema import AttributeSchema, Cardinality, MemoryTypeSchema, ValueType
    from .ledger.actions import Action, Reconciled
    from .memory.asynchronous import AsyncMemory
    from .memory.facade import DEFAULT_URL, Memory
    from .recall import Citation, RecallItem, RecallResult
    from .search import Embedder, EvidenceHit, Model2VecEmbedder, OpenAIEmbedder, SearchConfig, WordLlamaEmbedder

__version__ = "0.1.0"

_HOMES = {
    "Action": ".ledger.actions",
    "ActionInDoubt": "._core.errors",
    "Assertion": "._core.model",
    "AsyncMemory": ".memory.asynchronous",
    "AttributeSchema": "._core.schema",
    "AuditEntry": "._core.model",
    "Backfill": "._core.model",
    "BusyError": "._core.errors",
    "Cardinality": "._core.schema",
    "Citation": ".recall",
    "ConflictError": "._core.errors",
    "ConsentState": "._core.model",
    "DEFAULT_URL": ".memory.facade",
    "DeniedError": "._core.errors",
    "Effect": "._core.rules",
    "Embedder": ".search",
    "Episode": "._core.model",
    "EvidenceHit": ".search",
    "Fact": "._core.model",
    "ErasurePreview": "._core.model",
    "ForgetResult": "._core.model",
    "IndexStatus": "._core.model",
    "Key": "._core.model",
    "Memory": ".memory.facade",
    "MemoryTypeSchema": "._core.schema",
    "Model2VecEmbedder": ".search",
    "ModelError": "._core.errors",
    "NotFoundError": "._core.errors",
    "OpenAIEmbedder": ".search",
    "Page": "._core.model",
    "PurgeResult": "._core.model",
    "Quarantined": "._core.model",
    "Reachable": "._core.model",
    "RecallItem": ".recall",
    "RecallResult": ".recall",
    "Reconciled": ".ledger.actions",
    "Residue": "._core.model",
    "SchemaChange": "._core.model",
    "SchemaVersionError": "._core.errors",
    "SearchConfig": ".search",
    "SgamError": "._core.errors",
    "StoreError": "._core.errors",
    "SubjectName": "._core.model",
    "UnsafeDatabaseError": "._core.errors",
    "ValidationError": "._core.errors",
    "ValueType": "._core.schema",
    "WordLlamaEmbedder": ".search",
    "WriteResult": "._core.model",
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
    "AuditEntry",
    "Backfill",
    "BusyError",
    "Cardinality",
    "Citation",
    "ConflictError",
    "ConsentState",
    "DeniedError",
    "Effect",
    "Embedder",
    "Episode",
    "ErasurePreview",
    "EvidenceHit",
    "Fact",
    "ForgetResult",
    "IndexStatus",
    "Key",
    "Memory",
    "MemoryTypeSchema",
    "Model2VecEmbedder",
    "ModelError",
    "NotFoundError",
    "OpenAIEmbedder",
    "Page",
    "PurgeResult",
    "Quarantined",
    "Reachable",
    "RecallItem",
    "RecallResult",
    "Reconciled",
    "Residue",
    "SchemaChange",
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
