"""The unit of work and the read: every capability composed. Code above the store asks for
the narrowest capability it uses; ``WriteTransaction`` and ``Reader`` are what a backend
hands out, and mypy holds each backend to the whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._context import Attempt
from .._records import EpisodeRow
from .._requests import ReadAhead
from .access import AccessReads, AccessWrites
from .actions import ActionReads, ActionWrites
from .checkpoints import CheckpointCapability
from .documents import DocumentAccess
from .episodes import EpisodeReads, EpisodeWrites
from .erasure import ErasureWrites
from .extraction import ExtractionReads, ExtractionWrites
from .items import ItemReads, ItemWrites
from .ledger import LedgerReads, LedgerWrites
from .lifecycle import LifecycleReads, LifecycleWrites
from .portable import PortableAccess
from .schema import SchemaReads, SchemaWrites
from .scope import Statements
from .subjects import SubjectReads, SubjectWrites


class WriteTransaction(
    EpisodeWrites, SchemaWrites, LedgerWrites, ErasureWrites, ExtractionWrites, LifecycleWrites, ItemWrites,
    ActionWrites, AccessWrites, DocumentAccess, CheckpointCapability, SubjectWrites, PortableAccess, Statements,
    Protocol,
):
    """One tenant's write unit of work; everything it does commits or rolls back together."""

    acting_for: Attempt | None
    """The idempotent attempt the unit of work acts for (``_acting.py``), if any."""


class Reader(
    EpisodeReads, SchemaReads, LedgerReads, ExtractionReads, LifecycleReads, ItemReads, ActionReads, AccessReads,
    DocumentAccess, CheckpointCapability, SubjectReads, PortableAccess, Statements, Protocol,
):
    """Reads scoped to one tenant; every one is an index lookup or an index range."""

    def episodes(self, session: str | None, limit: int, newest_first: bool = False) -> list[EpisodeRow]: ...
    def prefetch(self, requests: Sequence[ReadAhead]) -> None:
        """A hint: the reads ``requests`` name will be made in this read, with those
        arguments. A backend with round trips may send their statements now, to travel
        with the next one it waits for, and answer the reads from what came back."""
        ...
