"""Document memory, handed out by a read or unit of work bound to its snapshot
(``DocumentStore``, ``store/_documents.py``)."""

from __future__ import annotations

from typing import Protocol

from .._documents import DocumentStore
from .scope import Scope


class DocumentAccess(Scope, Protocol):
    def documents(self) -> DocumentStore:
        """The tenant's document memory in this read or unit of work."""
        ...
