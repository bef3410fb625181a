"""The store contract, by capability.

Each capability is a small protocol in its own module: episodes, the tenant's schema, the
ledger (the operation log and its versions), erasure, the extraction path, the
lifecycle, LangGraph items, the action ledger, document memory, API keys and idempotent
requests, checkpoints, subjects, a tenant's rows for export and import, and the search
index a backend hands out (``search.py``), whose methods take the caller's read or unit
of work. ``Reader`` and
``WriteTransaction`` (``unit.py``) are their composition; code above the store types
against the narrowest one it needs. Every capability is scoped the same way
(``scope.py``): to one tenant, inside the caller's read or unit of work. The rules live
above this line (``sgam._core.rules``), so SQLite and PostgreSQL cannot disagree about
them; conveniences made of several calls (``apply_plan``) are plain functions, not
methods every backend repeats.
"""

from __future__ import annotations

from .access import AccessReads, AccessWrites
from .actions import ActionReads, ActionWrites
from .checkpoints import (
    CheckpointCapability,
    CheckpointRow,
    CheckpointStore,
    CheckpointWriter,
    CheckpointWriteRow,
    ThreadRow,
)
from .documents import DocumentAccess, DocumentStore
from .episodes import EpisodeReads, EpisodeWrites
from .erasure import ErasureWrites
from .extraction import ExtractionReads, ExtractionWrites
from .items import ItemReads, ItemWrites
from .ledger import LedgerReads, LedgerWrites, apply_plan
from .lifecycle import LifecycleReads, LifecycleWrites
from .portable import PortableAccess, PortableRowStore
from .schema import SchemaLookups, SchemaReads, SchemaWrites
from .scope import Scope, Statements
from .search import SearchIndex
from .subjects import SubjectReads, SubjectWrites
from .unit import Reader, WriteTransaction

__all__ = [
    "AccessReads",
    "AccessWrites",
    "ActionReads",
    "ActionWrites",
    "CheckpointCapability",
    "CheckpointRow",
    "CheckpointStore",
    "CheckpointWriteRow",
    "CheckpointWriter",
    "DocumentAccess",
    "DocumentStore",
    "EpisodeReads",
    "EpisodeWrites",
    "ErasureWrites",
    "ExtractionReads",
    "ExtractionWrites",
    "ItemReads",
    "ItemWrites",
    "LedgerReads",
    "LedgerWrites",
    "LifecycleReads",
    "LifecycleWrites",
    "PortableAccess",
    "PortableRowStore",
    "Reader",
    "SchemaLookups",
    "SchemaReads",
    "SchemaWrites",
    "SearchIndex",
    "Scope",
    "Statements",
    "SubjectReads",
    "SubjectWrites",
    "ThreadRow",
    "WriteTransaction",
    "apply_plan",
]
