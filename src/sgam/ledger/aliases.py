"""Aliases: one subject under several names, as recorded operations (replay format 1,
"Subject names").

An alias step says that from its transaction time on a name means another subject; when
the name has operations of its own, the subjects merge. Operations keep the name they
were given, so an unalias gives a name its operations back. Versions are stored under
the subject a name meant when they were derived, and every step re-derives its family
(the names aliases have ever joined) with ``ledger.derivation``. Reads at an earlier
``known_at`` therefore see the subjects as they stood; erasure re-derives a family the
same way, so it stays "as if never recorded" across merges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .._core.errors import ConflictError, NotFoundError
from .._core.rules import Operation
from ..store import AliasRow, WriteTransaction
from .derivation import rederive
from .families import joined, resolve


@dataclass(frozen=True, slots=True)
class NameRecord:
    """One line of a subject's page of names: ``name`` meant ``subject`` over
    [``since``, ``until``) in transaction time, by ``decided_by``'s decision."""

    name: str
    subject: str
    since: int
    until: int | None
    decided_by: str | None


def current_edges(steps: Iterable[AliasRow]) -> dict[str, str]:
    return {step.name: step.subject for step in steps if step.ended_at is None}


def family(steps: Sequence[AliasRow], names: Iterable[str]) -> set[str]:
    """``names`` and every name an alias step has ever joined to them, transitively."""
    return joined(((step.name, step.subject) for step in steps), names)


def next_step(steps: Sequence[AliasRow]) -> int:
    return 1 + max((max(step.seq, step.ended_step or 0) for step in steps), default=0)


def step_time(ops: Sequence[Operation], steps: Sequence[AliasRow], names: set[str], now: int) -> int:
    """Now, or later if the family's log (``ops``) or steps already run past the clock
    (recorded intervals stay ordered when the wall clock steps back)."""
    latest = max((op.recorded_at for op in ops), default=now)
    for step in steps:
        if step.name in names or step.subject in names:
            latest = max(latest, step.recorded_at, step.ended_at or step.recorded_at)
    return max(now, latest)


def alias(txn: WriteTransaction, name: str, subject: str, now: int, decided_by: str | None) -> AliasRow:
    """Record that ``name`` (normalised) means ``subject`` from now on; merge if it has
    operations of its own. A name already aliased elsewhere is pointed at ``subject``."""
    txn.lock_lifecycle()
    steps = txn.alias_steps()
    edges = current_edges(steps)
    target = resolve(edges, subject)
    if resolve(edges, name) == target:
        why = "is that subject's id" if name == target else f"already means {target!r}"
        raise ConflictError(f"name: {name!r} {why}; an alias must join two subjects", field="name", value=name)
    names = family(steps, [name, subject])
    _lock_family(txn, names)
    ops = txn.operations_of_subjects(sorted(names))
    at = step_time(ops, steps, names, now)
    after = txn.last_operation_seq()
    number = next_step(steps)
    for step in steps:
        if step.name == name and step.ended_at is None:
            txn.end_alias(step.seq, number, at, after)
            number += 1
    row = AliasRow(number, name, subject, at, after, decided_by)
    txn.add_alias(row)
    rederive(txn, subjects=names, strict=("alias", row.seq), ops=ops)
    _store_resolution(txn, names, at)
    return row


def unalias(txn: WriteTransaction, name: str, now: int) -> AliasRow:
    """From now on ``name`` is its own subject again, with the operations that named it."""
    txn.lock_lifecycle()
    steps = txn.alias_steps()
    current = next((step for step in steps if step.name == name and step.ended_at is None), None)
    if current is None:
        raise NotFoundError(f"name: {name!r} is not an alias in tenant {txn.tenant!r}", field="name", value=name)
    names = family(steps, [name])
    _lock_family(txn, names)
    ops = txn.operations_of_subjects(sorted(names))
    at = step_time(ops, steps, names, now)
    ended = replace(current, ended_step=next_step(steps), ended_at=at, ended_after_seq=txn.last_operation_seq())
    assert ended.ended_step is not None and ended.ended_after_seq is not None
    txn.end_alias(current.seq, ended.ended_step, at, ended.ended_after_seq)
    rederive(txn, subjects=names, ops=ops)
    _store_resolution(txn, names, at)
    return ended


def _lock_family(txn: WriteTransaction, names: set[str]) -> None:
    txn.lock_keys(sorted({(name, "") for name in names} | set(txn.version_keys(sorted(names)))))


def _store_resolution(txn: WriteTransaction, names: set[str], at: int) -> None:
    edges = current_edges(txn.alias_steps())
    stored = txn.current_resolution()
    changes: dict[str, str | None] = {}
    for name in names:
        meant = resolve(edges, name)
        wanted = None if meant == name else meant
        if stored.get(name) != wanted:
            changes[name] = wanted
    if changes:
        txn.resolve_names(changes, at)


def in_families(txn: WriteTransaction, subjects: Iterable[str]) -> list[set[str]]:
    """The alias families among ``subjects`` (those no step ever joined are left out)."""
    steps = txn.alias_steps()
    joined = {step.name for step in steps} | {step.subject for step in steps}
    families: list[set[str]] = []
    for subject in subjects:
        if subject in joined and not any(subject in found for found in families):
            families.append(family(steps, [subject]))
    return families


def forget_names(txn: WriteTransaction, subject: str) -> tuple[list[str], set[str]]:
    """The names meaning ``subject`` now (itself first), and the rest of their family:
    the names whose keys must be derived again once the erased names' steps are gone."""
    canonical = txn.resolve_subject(subject)
    names = [canonical, *txn.names_meaning(canonical)]
    rest = family(txn.alias_steps(), names) - set(names)
    return names, rest


def page_of_names(steps: Sequence[AliasRow], subject: str) -> list[NameRecord]:
    """Every alias step that joined a name to ``subject``'s family, directly or through
    a chain, as recorded (ended steps included)."""
    names = family(steps, [subject])
    return [NameRecord(step.name, step.subject, step.recorded_at, step.ended_at, step.decided_by)
            for step in steps if step.name in names or step.subject in names]
