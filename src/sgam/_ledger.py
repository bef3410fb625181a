"""The ledger service: the one object the layers above the store share.

``Memory`` is a facade for callers; extraction, review, the worker, replay steps and
lifecycle jobs need the same backend, write service, search and clock without the
facade's argument checking, and must be able to run several of those steps in one
transaction. They depend on this module, never on ``Memory``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TypeVar

from ._errors import SgamError
from ._model import Assertion, Episode, WriteResult
from ._rules import Version
from ._schema import AttributeSchema
from ._time import Clock, from_micros
from ._values import load_value
from ._write import Applied, PendingOp, WriteService, load_metadata
from .search import SearchService
from .store import Backend, EpisodeRow, Reader, WriteTransaction

T = TypeVar("T")


def to_assertion(tenant: str, version: Version) -> Assertion:
    return Assertion(
        id=version.assertion_id,
        tenant=tenant,
        subject=version.subject,
        attribute=version.attribute,
        value=load_value(version.value),
        memory_type=version.memory_type,
        valid_from=from_micros(version.valid_from),
        valid_to=None if version.valid_to is None else from_micros(version.valid_to),
        recorded_at=from_micros(version.recorded_from),
        superseded_at=None if version.recorded_to is None else from_micros(version.recorded_to),
        source=version.source,
        confidence=version.confidence,
        schema_version=version.schema_version,
        supersedes=version.supersedes,
        origin=version.origin.value,
        closed_by=version.closed_by,
    )


def to_episode(row: EpisodeRow) -> Episode:
    return Episode(
        tenant=row.tenant, id=row.episode_id, at=from_micros(row.occurred_at), text=row.text,
        recorded_at=from_micros(row.recorded_at), speaker=row.speaker, kind=row.kind,
        session=row.session, metadata=load_metadata(row.metadata), schema_version=row.schema_version,
    )


class Ledger:
    """Backend, write service and search index of one open store, with its clock."""

    def __init__(self, backend: Backend, writes: WriteService, search: SearchService) -> None:
        self.backend = backend
        self.writes = writes
        self.search = search

    @property
    def clock(self) -> Clock:
        return self.writes.clock

    def now(self) -> int:
        """The clock's instant in microseconds: transaction time for what runs next."""
        return self.writes.now()

    def run_write(self, tenant: str, work: Callable[[WriteTransaction], T]) -> T:
        return self.backend.run_write(tenant, work)

    def read(self, tenant: str) -> AbstractContextManager[Reader]:
        return self.backend.read(tenant)

    def apply(self, tenant: str, pending: PendingOp) -> WriteResult:
        """One validated operation in its own transaction."""
        applied = self.run_write(tenant, lambda txn: self.writes.apply_one(txn, pending))
        self.index_facts(tenant)
        return self.result(tenant, applied)

    def index_facts(self, tenant: str) -> None:
        """After a write has committed, give the new facts their vectors, so that reads never
        write. The write stands even if the embedder fails now: the facts still lacking a
        vector are embedded by the next write or by ``Memory.index_episodes``."""
        if self.search.embedder is None:
            return
        try:
            self.search.index_facts(tenant)
        except SgamError:
            return

    @staticmethod
    def result(tenant: str, applied: Applied) -> WriteResult:
        version = applied.version
        return WriteResult(applied.seq, applied.effect, None if version is None else to_assertion(tenant, version))

    def episode(self, tenant: str, episode_id: str) -> Episode | None:
        with self.read(tenant) as reader:
            row = reader.episode(episode_id)
        return None if row is None else to_episode(row)

    def attribute_schemas(self, tenant: str) -> list[AttributeSchema]:
        with self.read(tenant) as reader:
            return reader.attribute_schemas()
