"""The lifecycle: retention classes, consent, derivations between episodes, tombstones,
deadlines and the audit log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..._core.purpose import ConsentRow
from .._records import (
    AuditRow,
    ClassHoldings,
    RetentionRow,
)
from .scope import Scope


class LifecycleReads(Scope, Protocol):
    """Retention, consent, derivations and the audit log, read inside any unit of work."""

    def retention_classes(self) -> list[RetentionRow]: ...
    def lifecycle_due(self, now: int) -> bool:
        """Whether any write or episode of the tenant is past its deadline at ``now``
        (and not yet handled): one index probe per retention class."""
        ...
    def consents(self, subject: str | None) -> list[ConsentRow]:
        """The subject's consent statements, or (None) those of every subject that has any."""
        ...
    def consents_among(self, subjects: Sequence[str]) -> list[ConsentRow]:
        """The consent statements of any of ``subjects``, in one statement (per chunk):
        what a read filtering many values that name subjects needs."""
        ...
    def revoking_consents(self, uses: Sequence[str] | None = None) -> list[ConsentRow]:
        """The statements of every subject with a revoked one (among ``uses``, purposes
        with '' for every purpose; None: any): all a ``ConsentBook`` for those uses needs,
        since a subject without such a statement is consented."""
        ...
    def derivations(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(derived episode, source episode) edges whose derived side is in ``episode_ids``."""
        ...
    def derived_of(self, episode_ids: Sequence[str]) -> list[str]:
        """Episodes made directly from any of ``episode_ids``."""
        ...
    def sourced_subjects(self, episode_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(episode, subject) for every subject an operation sourced from the episodes has."""
        ...
    def audit(self, limit: int) -> list[AuditRow]:
        """The tenant's audit log, newest first."""
        ...
    def class_holdings(self) -> list[ClassHoldings]: ...
    def next_deadlines(self, now: int, limit: int) -> list[tuple[str, str, int]]:
        """The next ``limit`` deadlines after ``now``: (kind, retention class or '', instant)."""
        ...


class LifecycleWrites(LifecycleReads, Protocol):
    """Changes the lifecycle makes; erasure and expiry use them with the ledger's own."""

    def retention_class(self, name: str) -> RetentionRow | None: ...
    def put_retention_class(self, row: RetentionRow) -> None: ...
    def insert_derivations(self, episode_id: str, sources: Sequence[str]) -> None: ...
    def tombstoned_among(self, digests: Sequence[str]) -> set[str]:
        """The tombstoned ones of ``digests``: one statement for a batch of episodes."""
        ...
    def add_tombstones(self, digests: Sequence[str]) -> None: ...
    def lock_lifecycle(self) -> None:
        """Serialise expiry passes and consent changes of the tenant."""
        ...
    def due_operations(self, now: int) -> list[tuple[int, str, str]]:
        """(seq, subject, attribute) of operations whose ``expires_at`` <= ``now``."""
        ...
    def delete_operations(self, seqs: Sequence[int]) -> int: ...
    def due_episodes(self, now: int) -> list[tuple[str, str]]:
        """(episode id, on_expiry) of episodes past their class deadline at ``now`` that
        expiry has not handled yet (a keep_facts episode already without text is done)."""
        ...
    def lose_text(self, episode_ids: Sequence[str], at: int) -> int:
        """Drop the text (and speaker, session, metadata, vectors) of episodes; the rows stay."""
        ...
    def put_consent(self, subject: str, purpose: str, granted: bool, at: int) -> None: ...
    def delete_consents(self, rows: Sequence[ConsentRow]) -> int:
        """Delete these statements, each only as it was read (same purpose and seq)."""
        ...
    def record_audit(self, row: AuditRow) -> None: ...
