"""Aliases: one subject under several names, as recorded operations (replay format 1,
"Subject names").

An alias step says that from its transaction time on a name means another subject; when
the name has operations of its own, the subjects merge. Operations keep the name they
were given, so an unalias gives a name its operations back. Versions are stored under
the subject a name meant when they were derived, and every step re-derives its family
(the names aliases have ever joined) from the operation log and the steps, in the order
both were recorded: ops before a step are replayed under the old names up to the step's
instant and retired there, and replayed under the new names from it on. Reads at an
earlier ``known_at`` therefore see the subjects as they stood; erasure re-derives a
family the same way, so it stays "as if never recorded" across merges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ._errors import ConflictError, NotFoundError
from ._rules import KeyTimeline, Operation, Version
from .store import AliasRow, WriteTransaction

Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class NameRecord:
    """One line of a subject's page of names: ``name`` meant ``subject`` over
    [``since``, ``until``) in transaction time, by ``decided_by``'s decision."""

    name: str
    subject: str
    since: int
    until: int | None
    decided_by: str | None


def resolve(edges: dict[str, str], name: str) -> str:
    """Follow alias edges from ``name`` to the subject it means (steps refuse cycles)."""
    seen = {name}
    while name in edges:
        name = edges[name]
        if name in seen:  # pragma: no cover - a cycle is refused when it would be made
            raise ConflictError(f"alias cycle through {name!r}", field="name", value=name)
        seen.add(name)
    return name


def current_edges(steps: Iterable[AliasRow]) -> dict[str, str]:
    return {step.name: step.subject for step in steps if step.ended_at is None}


def family(steps: Sequence[AliasRow], names: Iterable[str]) -> set[str]:
    """``names`` and every name an alias step has ever joined to them, transitively."""
    found = set(names)
    grew = True
    while grew:
        grew = False
        for step in steps:
            if (step.name in found) != (step.subject in found):
                found.update((step.name, step.subject))
                grew = True
    return found


def next_step(steps: Sequence[AliasRow]) -> int:
    return 1 + max((max(step.seq, step.ended_step or 0) for step in steps), default=0)


def _events(steps: Sequence[AliasRow]) -> list[tuple[tuple[int, int, int], str, AliasRow]]:
    """Alias and unalias events placed in the operation log: an event after operation
    ``after_seq`` sorts before operation ``after_seq + 1``; events of one place by step."""
    events = [((step.after_seq, 1, step.seq), "alias", step) for step in steps]
    events += [((step.ended_after_seq, 1, step.ended_step), "unalias", step) for step in steps
               if step.ended_after_seq is not None and step.ended_step is not None]
    return sorted(events, key=lambda event: event[0])


class _Replay:
    """The family's keys as the log and the steps derive them."""

    def __init__(self) -> None:
        self.edges: dict[str, str] = {}
        self.timelines: dict[Key, KeyTimeline] = {}
        self.archive: dict[Key, list[Version]] = {}
        self.contributions: dict[Key, list[Operation]] = {}

    def key_of(self, op: Operation) -> Key:
        return resolve(self.edges, op.subject), op.attribute

    def apply(self, op: Operation) -> None:
        key = self.key_of(op)
        self.contributions.setdefault(key, []).append(op)
        timeline = self.timelines.setdefault(key, KeyTimeline())
        try:
            timeline.apply(replace(op, subject=key[0]))
        except (ConflictError, NotFoundError):
            pass  # the rules now refuse it (an erasure removed what it built on)

    def regroup(self, at: int, strict: bool) -> None:
        """The edges changed at ``at``: every key whose operations changed is retired
        there and derived again, as recorded at ``at``, from the operations it now has."""
        regrouped: dict[Key, list[Operation]] = {}
        for ops in self.contributions.values():
            for op in ops:
                regrouped.setdefault(self.key_of(op), []).append(op)
        for key in set(self.contributions) | set(regrouped):
            before = [op.seq for op in self.contributions.get(key, [])]
            ops = sorted(regrouped.get(key, []), key=lambda op: op.seq)
            if before == [op.seq for op in ops]:
                continue
            self._retire(key, at)
            timeline = KeyTimeline()
            for op in ops:
                try:
                    timeline.apply(replace(op, subject=key[0], recorded_at=at))
                except ConflictError as exc:
                    if strict:
                        raise ConflictError(
                            f"the merge would give {key[0]}.{key[1]} two values at one valid_from: "
                            f"{exc.message}", field="name",
                        ) from None
                except NotFoundError:
                    pass
            self.timelines[key] = timeline
        self.contributions = {key: sorted(ops, key=lambda op: op.seq) for key, ops in regrouped.items()}

    def _retire(self, key: Key, at: int) -> None:
        timeline = self.timelines.pop(key, None)
        if timeline is None:
            return
        kept = self.archive.setdefault(key, [])
        kept += timeline.retired
        kept += [replace(v, recorded_to=at, row_id=None) for v in timeline.current if v.recorded_from != at]

    def versions(self) -> dict[Key, list[Version]]:
        keys = set(self.archive) | set(self.timelines)
        return {key: self.archive.get(key, []) + (self.timelines[key].all_versions() if key in self.timelines else [])
                for key in keys}


def rederive_family(txn: WriteTransaction, names: set[str], *, strict_last: bool = False) -> None:
    """Derive every key of the family ``names`` again from its operations and alias steps
    and store the result; ``strict_last``: the last step is being taken now, and a merge
    it cannot make is a conflict."""
    steps = [step for step in txn.alias_steps() if step.name in names or step.subject in names]
    events = _events(steps)
    replay = _Replay()
    last = len(events) - 1
    index = 0
    for op in txn.operations_of_subjects(sorted(names)):
        while index < len(events) and events[index][0] < (op.seq, 0, 0):
            _take(replay, events[index], strict_last and index == last)
            index += 1
        replay.apply(op)
    while index < len(events):
        _take(replay, events[index], strict_last and index == last)
        index += 1
    derived = replay.versions()
    for key in set(txn.version_keys(sorted(names))) | set(derived):
        txn.replace_versions(key[0], key[1], derived.get(key, []))


def _take(replay: _Replay, event: tuple[tuple[int, int, int], str, AliasRow], strict: bool) -> None:
    _, kind, step = event
    if kind == "alias":
        replay.edges[step.name] = step.subject
        at = step.recorded_at
    else:
        replay.edges.pop(step.name, None)
        assert step.ended_at is not None
        at = step.ended_at
    replay.regroup(at, strict)


def step_time(txn: WriteTransaction, names: set[str], now: int) -> int:
    """Now, or later if the family's log or steps already run past the clock (recorded
    intervals stay ordered when the wall clock steps back)."""
    latest = max((op.recorded_at for op in txn.operations_of_subjects(sorted(names))), default=now)
    for step in txn.alias_steps():
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
    at = step_time(txn, names, now)
    after = txn.last_operation_seq()
    number = next_step(steps)
    for step in steps:
        if step.name == name and step.ended_at is None:
            txn.end_alias(step.seq, number, at, after)
            number += 1
    row = AliasRow(number, name, subject, at, after, decided_by)
    txn.add_alias(row)
    rederive_family(txn, names, strict_last=True)
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
    at = step_time(txn, names, now)
    ended = replace(current, ended_step=next_step(steps), ended_at=at, ended_after_seq=txn.last_operation_seq())
    assert ended.ended_step is not None and ended.ended_after_seq is not None
    txn.end_alias(current.seq, ended.ended_step, at, ended.ended_after_seq)
    rederive_family(txn, names)
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
