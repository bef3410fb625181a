"""A backend seen through one call's context (``Memory.bound``): each unit of work and
read it opens carries the context, and every other way it reaches the store checks the
context's key first, so no path of a keyed call skips the check."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

from ._backend import Backend
from ._context import CallContext
from ._records import JobRow, ResidueScan
from .contract import CheckpointWriter, Reader, WriteTransaction
from .contract.search import SearchIndex

T = TypeVar("T")


class BoundBackend:
    """``Backend`` over another, every call made with ``context``; shares its pool,
    caches and search index (a view per call, nothing of its own to close)."""

    __slots__ = ("checks_keys", "context", "inner", "url")

    def __init__(self, inner: Backend, context: CallContext) -> None:
        self.inner: Backend = inner.inner if isinstance(inner, BoundBackend) else inner
        self.context = context
        self.url = inner.url
        self.checks_keys = inner.checks_keys

    def run_write(
        self, tenant: str, work: Callable[[WriteTransaction], T], context: CallContext | None = None,
    ) -> T:
        return self.inner.run_write(tenant, work, context or self.context)

    def checkpoint_writer(self, tenant: str, context: CallContext | None = None) -> CheckpointWriter | None:
        return self.inner.checkpoint_writer(tenant, context or self.context)

    def read(self, tenant: str, context: CallContext | None = None) -> AbstractContextManager[Reader]:
        return self.inner.read(tenant, context or self.context)

    def read_one(self, tenant: str, context: CallContext | None = None) -> AbstractContextManager[Reader]:
        return self.inner.read_one(tenant, context or self.context)

    def check_key(self, context: CallContext | None = None) -> None:
        self.inner.check_key(context or self.context)

    def _checked(self) -> Backend:
        self.inner.check_key(self.context)
        return self.inner

    def schema_version(self) -> int:
        return self._checked().schema_version()

    def search_index(self) -> SearchIndex:
        """The index works on readers and units of work this view opened: no check of its own."""
        return self.inner.search_index()

    def purge_residue(self, wait: float = 1.0) -> str | None:
        return self._checked().purge_residue(wait)

    def close(self) -> None:
        """A view closes nothing: the backend it shares stays open."""

    def due_tenants(self, now: int) -> list[str]:
        return self._checked().due_tenants(now)

    def residue(self, tenant: str, needles: Sequence[str]) -> ResidueScan:
        return self._checked().residue(tenant, needles)

    def claim_jobs(
        self, owner: str, now: int, lease_until: int, limit: int, tenant: str | None
    ) -> list[JobRow]:
        return self._checked().claim_jobs(owner, now, lease_until, limit, tenant)

    def count_jobs(self, now: int, tenant: str | None) -> int:
        return self._checked().count_jobs(now, tenant)
