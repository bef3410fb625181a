"""The ledger: the operation log and the versions derived from it, as a read asks for them
and as a write's planner looks them up and changes them. ``apply_plan`` is a plain
function over the capability, not a method every backend repeats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..._core.rules import KeyView, Operation, Plan, Version
from ..._core.schema import AttributeSchema
from .._records import (
    QueryFilter,
)
from .._requests import OneFactWrite
from .scope import Scope


class LedgerReads(Scope, Protocol):
    """Every read is an index lookup or an index range."""

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None: ...
    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]: ...
    def versions(self, subject: str, attribute: str) -> list[Version]: ...
    def key_rows(self, subject: str, attribute: str) -> list[Version]:
        """Every stored version of the key as stored (ends not derived)."""
        ...
    def key_values(self, subject: str, attribute: str, since: int) -> tuple[list[str], int]:
        """The distinct values of the key's stored versions, and how the last instant at
        which one was recorded or retired compares with ``since`` (-1 before, 0 at, 1
        after; -1 for no version): what a dual read asks before it converts one version,
        without building the others."""
        ...
    def query(self, flt: QueryFilter) -> list[Version]: ...
    def operations(self, subject: str, attribute: str) -> list[Operation]: ...
    def declared(self, attribute: str) -> AttributeSchema | None: ...
    def member_keys(self, subject: str, prefix: str) -> list[str]:
        """Ledger attributes of the subject starting with ``prefix``, in code point order."""
        ...
    def holders(self, attribute: str, value: str, at: int, known_at: int | None, limit: int) -> list[Version]:
        """Versions of ledger attribute ``attribute`` with ``value`` holding at ``at``, by subject."""
        ...
    def members(self, subject: str, prefix: str, at: int, known_at: int | None) -> list[Version]:
        """Per member key under ``prefix``, the version holding at ``at`` (as ``get``)."""
        ...
    def holding(
        self, subjects: Sequence[str], attribute: str, at: int, known_at: int | None, *, members: bool = False,
    ) -> list[Version]:
        """Per subject, the version of key ``attribute`` (``members``: of each key under that
        prefix) holding at ``at``, by subject and key, in one statement per chunk."""
        ...
    def set_history(self, subject: str, prefix: str, known_at: int | None) -> list[Version]:
        """Every member's assertions by ``valid_from``, then by the value's JSON text."""
        ...


class LedgerWrites(Scope, Protocol):
    """A write's index lookups and row changes; ``apply_plan`` below combines two of them."""

    def lock_keys(self, keys: list[tuple[str, str]], since: list[int] | None = None) -> None:
        """Announce every key a batch will touch before it touches any, so a backend that
        locks per key can take the locks at once in a deadlock-free order (and prefetch).
        ``since``: per key, the earliest instant the batch will ask about; ``current`` may
        then hold only the versions from the second one starting at or before it on (all
        that the rules consult at that instant or later) instead of the key's whole
        timeline."""
        ...
    def prefetch_one(self, request: OneFactWrite) -> None:
        """A one-operation unit of work names its key, instant and source before any lookup,
        so a backend that pays a round trip per statement can take the key's lock and fetch
        everything the rules will ask (schema version, source, last change, the versions
        around ``moment``) at once."""
        ...
    def key(self, subject: str, attribute: str) -> KeyView: ...
    def current(self, subject: str, attribute: str) -> list[Version]:
        """The current versions of a key, ordered by ``valid_from``."""
        ...
    def retire(self, versions: list[Version], recorded_at: int) -> None:
        """End the recorded interval of current versions at ``recorded_at``; a version
        recorded at that very instant was never visible and is deleted instead."""
        ...
    def insert_versions(self, versions: list[Version]) -> None: ...
    def last_recorded_at(self, subject: str, attribute: str) -> int | None: ...
    def relation_attributes(self) -> list[str]:
        """The tenant's attributes declared with type subject."""
        ...
    def keys_naming(self, attribute: str, value: str) -> list[tuple[str, str]]:
        """Keys of ``attribute`` (any timeline, any member) that ever held ``value``."""
        ...
    def attribute_in_use(self, attribute: str) -> bool:
        """Whether any key (a purpose's timeline, a set's member) is of ``attribute``."""
        ...
    def append_operation(self, op: Operation) -> int:
        """Store ``op`` (its ``seq`` is ignored) and return the sequence number it got."""
        ...
    def append_operations(self, ops: list[Operation]) -> list[int]:
        """Store many operations; their sequence numbers follow the list's order."""
        ...
    def operations(self, subject: str, attribute: str) -> list[Operation]: ...


def apply_plan(txn: LedgerWrites, plan: Plan, recorded_at: int) -> None:
    """Retire ``plan.retire`` at ``recorded_at`` (dropping those recorded at that very
    instant) and insert ``plan.add`` as current versions."""
    txn.retire(plan.retire, recorded_at)
    if plan.add:
        txn.insert_versions(plan.add)
