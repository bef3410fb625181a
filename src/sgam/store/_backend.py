"""What a whole store offers: transactions, reads, its search index and its job queue."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, TypeVar

from ._context import NO_CONTEXT, CallContext
from ._records import JobRow, ResidueScan
from .contract import CheckpointWriter, Reader, WriteTransaction
from .contract.search import SearchIndex

T = TypeVar("T")


class Backend(Protocol):
    url: str
    checks_keys: bool
    """Whether the store checks a call's key (``CallContext.key``) with the first statement
    of each unit of work and read the call opens, before anything of it commits or is
    answered; else the surface reads the key's row before the call."""

    def run_write(
        self, tenant: str, work: Callable[[WriteTransaction], T], context: CallContext = NO_CONTEXT,
    ) -> T:
        """Run ``work`` in one transaction, retrying it whole on busy or serialisation
        failures; driver errors leave as sgam errors. ``context``: the key its first
        statement checks, the attempt it acts for."""
        ...

    def checkpoint_writer(self, tenant: str, context: CallContext = NO_CONTEXT) -> CheckpointWriter | None:
        """The one-call path of the tenant's checkpoint puts and pending writes, when this
        backend has one; None: each is a unit of work."""
        ...
    def read(self, tenant: str, context: CallContext = NO_CONTEXT) -> AbstractContextManager[Reader]: ...
    def read_one(self, tenant: str, context: CallContext = NO_CONTEXT) -> AbstractContextManager[Reader]:
        """A read that runs one statement. No transaction is opened around it (a statement
        is its own snapshot), and on PostgreSQL the tenant and the statement travel in one
        round trip; a further statement would be a snapshot of its own."""
        ...
    def check_key(self, context: CallContext) -> None:
        """Check the context's key, if not checked yet, in a statement of its own: for a
        path that opens no unit of work or read (``BoundBackend``)."""
        ...
    def schema_version(self) -> int:
        """The version of the database layout, as the migrations numbered it."""
        ...
    def search_index(self) -> SearchIndex:
        """The keyword and vector index that lives in this backend's database."""
        ...
    def purge_residue(self, wait: float = 1.0) -> str | None:
        """After an erasure, remove copies the database keeps outside live rows, waiting
        up to ``wait`` seconds for what blocks it; None when none remain, else what
        remains and why."""
        ...
    def close(self) -> None: ...

    def due_tenants(self, now: int) -> list[str]:
        """Tenants with a write or an episode past its deadline: what a purge must visit."""
        ...
    def residue(self, tenant: str, needles: Sequence[str]) -> ResidueScan:
        """Every place of the tenant's data (and the files, where the backend can read
        them) in which any of ``needles`` still appears; never another tenant's, so a
        place that mixes tenants is searched only when no other tenant has data."""
        ...

    def claim_jobs(
        self, owner: str, now: int, lease_until: int, limit: int, tenant: str | None
    ) -> list[JobRow]:
        """Lease up to ``limit`` queued extraction jobs whose lease is free or expired, of
        every tenant (a worker serves them all) or of one; each claim counts an attempt."""
        ...
    def count_jobs(self, now: int, tenant: str | None) -> int:
        """Queued jobs not under a live lease: the backlog a worker still has to do."""
        ...

