"""The ledger service: the one object the layers above the store share.

``Memory`` is a facade for callers; extraction, review, the worker, replay steps and
lifecycle jobs need the same backend, write service, search and clock without the
facade's argument checking, and must be able to run several of those steps in one
transaction. They depend on this module, never on ``Memory``.

Deadlines are part of every unit of work and every read here: what is past its deadline
at ``now`` is settled (``lifecycle.expiry.settle``) before anything runs. A read finds due work
with one indexed probe and, only then, completes it in a write before answering; a write
does it in its own transaction. So nothing past a deadline is returned by any path that
goes through the ledger, purge or no purge, and reading never moves a deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from types import TracebackType
from typing import TypeVar

from .._core.errors import SgamError
from .._core.model import Episode, WriteResult
from .._core.schema import AttributeSchema
from .._core.secret import Digests
from .._core.time import Clock
from ..lifecycle.expiry import settle
from ..lifecycle.participants import Erased, Participant, Reach
from ..search import SearchService
from ..search.service import Embedded
from ..store import (
    Backend,
    BoundBackend,
    CallContext,
    EpisodeRow,
    ReadAhead,
    Reader,
    UnfinishedBackfills,
    WriteTransaction,
)
from .dual_read import DualReader
from .records import to_assertion, to_episode
from .write import Applied, PendingOp, WriteService

T = TypeVar("T")


class Ledger:
    """Backend, write service and search index of one open store, with its clock, and
    what its erasures and expiries reach (``reach``: the features taking part)."""

    def __init__(
        self, backend: Backend, writes: WriteService, search: SearchService,
        participants: Sequence[Participant] = (),
    ) -> None:
        self.backend = backend
        self.writes = writes
        self.search = search
        self.reach = Reach(writes.digests, tuple(participants))

    def bound(self, context: CallContext) -> Ledger:
        """This ledger for one call: the same write service, search index and caches over
        a view of the backend that opens every unit of work and read with ``context``."""
        view = Ledger.__new__(Ledger)
        view.__dict__.update(self.__dict__)
        view.backend = BoundBackend(self.backend, context)
        view.search = self.search.bound(view.backend)
        return view

    @property
    def clock(self) -> Clock:
        return self.writes.clock

    def now(self) -> int:
        """The clock's instant in microseconds: transaction time for what runs next."""
        return self.writes.now()

    @property
    def digests(self) -> Digests:
        return self.writes.digests

    def run_write(
        self, tenant: str, work: Callable[[WriteTransaction], T], call: str = "write",
        prefetch: Callable[[WriteTransaction], None] | None = None,
    ) -> T:
        """``work`` in one transaction that first settles the tenant's deadlines; after an
        expiry the residue goes as after an erasure (``call`` names the caller in the
        audit log). ``prefetch`` asks for what ``work`` will look up before the deadline
        check, so that a backend may bring both in one round trip."""
        settled: list[Erased] = []

        def unit(txn: WriteTransaction) -> T:
            if prefetch is not None:
                prefetch(txn)
            settled[:] = [settle(txn, self.now(), self.reach, call)]  # a retried unit starts over
            return work(txn)

        result = self.backend.run_write(tenant, unit)
        if settled and settled[0].anything:
            self.backend.purge_residue()
        return result

    def read(self, tenant: str, call: str = "read", ahead: Sequence[ReadAhead] = ()) -> AbstractContextManager[Reader]:
        """A read scope of the tenant in which nothing is past its deadline at ``now``.
        ``ahead``: reads the scope will make first, which a backend may send with the
        deadline probe (``Reader.prefetch``)."""
        return _SettledRead(self, tenant, call, ahead)

    def apply(self, tenant: str, pending: PendingOp) -> WriteResult:
        """One validated operation in its own unit of work, its lookups named first so
        that a backend may send them with the deadline probe."""
        applied = self.run_write(tenant, lambda txn: self.writes.apply_one(txn, pending, prefetched=True),
                                 prefetch=lambda txn: self.writes.prefetch(txn, pending))
        self.index_facts(tenant)
        return self.result(tenant, applied)

    def add_episodes(self, tenant: str, items: Sequence[tuple[EpisodeRow, tuple[str, ...]]]) -> list[Episode]:
        """Validated episodes (each with the episodes it was made from) in one unit of
        work, with their vectors. The vectors are made before the transaction, so a
        failing embedder changes nothing."""
        rows = [row for row, _ in items]

        def work(embedded: Embedded, txn: WriteTransaction) -> list[EpisodeRow]:
            txn.prefetch_episodes([row.episode_id for row in rows])
            stored = self.writes.add_episodes(txn, items)
            self.search.store_vectors(txn, rows, stored, embedded)
            return stored

        written = self.search.with_vectors(
            tenant, rows, lambda embedded: self.run_write(tenant, partial(work, embedded), "add_episode"))
        return [to_episode(row, sources) for row, (_, sources) in zip(written, items, strict=True)]

    def index_facts(self, tenant: str) -> None:
        """After a write has committed, give the new facts their vectors, so that reads never
        write. The write stands even if the embedder fails now: the facts still lacking a
        vector are embedded by the next write or by ``Memory.index_episodes``."""
        try:
            self.search.index_facts(tenant)
        except SgamError:
            return

    @staticmethod
    def result(tenant: str, applied: Applied) -> WriteResult:
        version = applied.version
        return WriteResult(applied.seq, applied.effect, None if version is None else to_assertion(tenant, version))

    def episode(self, tenant: str, episode_id: str) -> Episode | None:
        """The episode if it can be read: recorded, not erased, not past its deadline."""
        with self.read(tenant, "episode") as reader:
            row = reader.episode(episode_id)
        return None if row is None or not row.readable else to_episode(row)

    def attribute_schemas(self, tenant: str) -> list[AttributeSchema]:
        with self.read(tenant) as reader:
            return reader.attribute_schemas()


class _SettledRead(AbstractContextManager[Reader]):
    """``Ledger.read``: the backend's read scope, entered again after settling the
    tenant's deadlines in a write when the first look finds something due (a class
    rather than ``@contextmanager``: every read goes through it)."""

    __slots__ = ("_ahead", "_call", "_ledger", "_scope", "_tenant")

    def __init__(self, ledger: Ledger, tenant: str, call: str, ahead: Sequence[ReadAhead]) -> None:
        self._ledger = ledger
        self._tenant = tenant
        self._call = call
        self._ahead = ahead
        self._scope: AbstractContextManager[Reader] | None = None

    def __enter__(self) -> Reader:
        ledger, tenant = self._ledger, self._tenant
        now = ledger.now()
        scope = ledger.backend.read(tenant)
        reader = scope.__enter__()
        try:
            reader.prefetch(self._named())
            due = reader.lifecycle_due(now)
        except BaseException as exc:
            scope.__exit__(type(exc), exc, exc.__traceback__)
            raise
        if due:
            scope.__exit__(None, None, None)
            ledger.run_write(tenant, lambda txn: None, self._call)
            scope = ledger.backend.read(tenant)
            reader = scope.__enter__()
            reader.prefetch(self._named())  # after a settling write: with the next wait
        self._scope = scope
        try:
            return DualReader.around(reader)
        except BaseException as exc:
            scope.__exit__(type(exc), exc, exc.__traceback__)
            raise

    def _named(self) -> list[ReadAhead]:
        """What the scope will read first: the caller's reads, and the unfinished backfills
        ``DualReader`` asks for (so a backend answers them in the read's first wait)."""
        return [*self._ahead, UnfinishedBackfills()]

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        assert self._scope is not None
        return self._scope.__exit__(kind, exc, tb)
