"""Deriving keys from the operation log and the recorded steps that change what a name
means: aliases (subjects) and schema migrations (attributes: rename, retype,
cardinality). Every such step is taken at a transaction time; reads with an earlier
``known_at`` must see the old shape under the old names, and erasure must stay "as if
never recorded" on both sides of a step.

So a step is not a rewrite: the replay below walks the log and the steps in the order
both were recorded. At a step, every key whose operations (or their converted values)
change is retired at the step's instant and derived again, as recorded then, from the
operations it now has, with the planner of every write (``_core.rules.KeyTimeline``); a
cardinality change carries each key's versions over to the new shape instead (one ->
many: each value its member over the same interval; many -> one: each member's
versions the key's). Erasure runs the same replay over what remains.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from .._core.conversions import TypeConversion, ValueConversion
from .._core.errors import ConflictError, NotFoundError, SgamError, ValidationError
from .._core.purpose import MEMBER, ledger_attribute, member_attribute, split_attribute
from .._core.rules import KeyTimeline, Operation, OpKind, Version, ended_all
from .._core.schema import AttributeSchema, Cardinality, ValueType
from ..store import AliasRow, ChangeRow, ConvertedRow, QuarantineRow, SubjectReads, WriteTransaction
from .families import resolve
from .relations import same_subject

Key = tuple[str, str]
Order = tuple[int, int, int, int, int]
Ident = tuple[str, int]
"""A step by table and number: ("alias", n), ("unalias", n) or ("change", n)."""


def memory_type_of(change: ChangeRow) -> str | None:
    """The memory type whose new version the step is (a retype of its values), if any."""
    if change.kind != "retype":
        return None
    found = json.loads(change.detail).get("memory_type")
    return None if found is None else str(found)


@dataclass(frozen=True, slots=True)
class RecordedConversion:
    """A memory type's new version as its conversion function left it: each operation
    of the type it changed, converted or set aside (``ConvertedRow``); the others stay."""

    memory_type: str
    rows: Mapping[int, ConvertedRow]

    def reaches(self, op: Operation) -> bool:
        return op.memory_type == self.memory_type

    def __call__(self, op: Operation, current: str) -> str | None:
        row = self.rows.get(op.seq)
        return current if row is None else row.value

    def refused(self, attribute: str, unconverted: Sequence[str]) -> SgamError:  # pragma: no cover - replay only
        return ValidationError("memory_type", self.memory_type, f"{len(unconverted)} value(s) set aside")


@dataclass(frozen=True, slots=True)
class Event:
    """A step placed in the log: after operation ``after_seq``, then by its instant."""

    order: Order
    ident: Ident
    apply: Callable[[Derivation, bool], None]


def alias_events(steps: Iterable[AliasRow]) -> list[Event]:
    events: list[Event] = []
    for step in steps:
        events.append(Event((step.after_seq, 1, step.recorded_at, 0, step.seq), ("alias", step.seq),
                            partial(_join, step)))
        if step.ended_at is not None and step.ended_after_seq is not None and step.ended_step is not None:
            events.append(Event((step.ended_after_seq, 1, step.ended_at, 0, step.ended_step),
                                ("unalias", step.ended_step), partial(_split, step)))
    return events


def change_events(changes: Iterable[ChangeRow]) -> list[Event]:
    return [Event((change.after_seq, 1, change.recorded_at, 1, change.seq), ("change", change.seq),
                  partial(_migrate, change)) for change in changes]


def _join(step: AliasRow, derivation: Derivation, strict: bool) -> None:
    derivation.join_subject(step.name, step.subject, step.recorded_at, strict)


def _split(step: AliasRow, derivation: Derivation, strict: bool) -> None:
    assert step.ended_at is not None
    derivation.split_subject(step.name, step.ended_at)


def _migrate(change: ChangeRow, derivation: Derivation, strict: bool) -> None:
    derivation.migrate(change, strict)


@dataclass
class Derivation:
    """The keys of a set of operations as the log and the steps derive them."""

    cardinality_of: Callable[[str], Cardinality]
    """An attribute's cardinality before any recorded change of it."""
    subject_edges: dict[str, str] = field(default_factory=dict)
    attribute_edges: dict[str, str] = field(default_factory=dict)
    cardinalities: dict[str, Cardinality] = field(default_factory=dict)
    ops: list[Operation] = field(default_factory=list)
    values: dict[int, str | None] = field(default_factory=dict)
    """Each operation's value after the retypes so far."""
    quarantined: dict[int, tuple[Operation, str]] = field(default_factory=dict)
    """Operations a retype set aside, with their value then, by ``seq``."""
    retracted_member: dict[int, str] = field(default_factory=dict)
    timelines: dict[Key, KeyTimeline] = field(default_factory=dict)
    archive: dict[Key, list[Version]] = field(default_factory=dict)
    derived_from: dict[Key, list[tuple[int, str | None]]] = field(default_factory=dict)
    """What each key was last derived from: (seq, value) of its operations."""
    refused: dict[int, str] | None = None
    """When given, the step being taken collects here (by ``seq``) the values it cannot
    convert instead of refusing at once: a backfilled step checks its attribute a batch
    of subjects at a time, then refuses with every batch's count."""
    conversions: Mapping[int, ValueConversion] = field(default_factory=dict)
    """The conversion of each retype step (by change ``seq``) that is not its value type's."""
    relation_of: Callable[[str], bool] = lambda attribute: False
    """Whether an attribute was a relation (type subject) before any recorded change of it."""
    relations: dict[str, bool] = field(default_factory=dict)

    def relation(self, attribute: str) -> bool:
        if attribute not in self.relations:
            self.relations[attribute] = self.relation_of(attribute)
        return self.relations[attribute]

    def timeline(self, key: Key, current: list[Version] | None = None) -> KeyTimeline:
        """A key's timeline whose values compare as the key's attribute says at each
        step: a one-valued relation's by the subject they name (aliases as they stand)."""
        return KeyTimeline(current, partial(self._same, key))

    def _same(self, key: Key, stored: str, value: str) -> bool:
        if MEMBER in key[1] or not self.relation(resolve(self.attribute_edges, split_attribute(key[1])[0])):
            return False
        return same_subject(partial(resolve, self.subject_edges))(stored, value)

    # placing operations ---------------------------------------------------------------

    def cardinality(self, attribute: str) -> Cardinality:
        if attribute not in self.cardinalities:
            self.cardinalities[attribute] = self.cardinality_of(attribute)
        return self.cardinalities[attribute]

    def attribute_of(self, op: Operation) -> str:
        return resolve(self.attribute_edges, split_attribute(op.attribute)[0])

    def value_of(self, op: Operation) -> str | None:
        return None if op.kind is OpKind.RETRACT else self.values.get(op.seq, op.value)

    def key_of(self, op: Operation) -> Key | None:
        """The key ``op`` belongs to now; None for a retraction of a set whose member is
        unknown (written before the attribute held a set, closing nothing)."""
        base, purpose = split_attribute(op.attribute)
        attribute = resolve(self.attribute_edges, base)
        subject = resolve(self.subject_edges, op.subject)
        if self.cardinality(attribute) is Cardinality.ONE:
            return subject, ledger_attribute(attribute, purpose)
        if op.kind is OpKind.RETRACT:
            written = op.attribute.partition(MEMBER)[2] if MEMBER in op.attribute else None
            member = self.retracted_member.get(op.seq, written)
        else:
            member = self.value_of(op)
        return None if member is None else (subject, member_attribute(attribute, purpose, member))

    def placed(self, op: Operation, key: Key, at: int | None = None) -> Operation:
        return replace(op, subject=key[0], attribute=key[1], value=self.value_of(op),
                       recorded_at=op.recorded_at if at is None else at)

    def apply(self, op: Operation) -> None:
        self.ops.append(op)
        key = self.key_of(op)
        if key is None:
            return
        self.derived_from.setdefault(key, []).append((op.seq, self.value_of(op)))
        timeline = self.timelines.get(key)
        if timeline is None:
            timeline = self.timelines[key] = self.timeline(key)
        try:
            timeline.apply(self.placed(op, key))
        except (ConflictError, NotFoundError):
            pass  # the rules now refuse it (an erasure removed what it built on)

    # steps ----------------------------------------------------------------------------

    def join_subject(self, name: str, subject: str, at: int, strict: bool) -> None:
        self.subject_edges[name] = subject
        self.regroup(at, strict, "the merge")

    def split_subject(self, name: str, at: int) -> None:
        self.subject_edges.pop(name, None)
        self.regroup(at, False, "the split")

    def migrate(self, change: ChangeRow, strict: bool) -> None:
        detail = json.loads(change.detail)
        if change.kind == "rename":
            self.cardinalities[detail["to"]] = self.cardinality(change.attribute)
            self.relations[detail["to"]] = self.relation(change.attribute)
            self.attribute_edges[change.attribute] = detail["to"]
            self.regroup(change.recorded_at, strict, "the rename")
        elif change.kind == "retype":
            conversion = self.conversions.get(change.seq) or TypeConversion.of(detail)
            if "type" in detail:
                self.relations[change.attribute] = detail["type"] == ValueType.SUBJECT.value
            self._retype(change.attribute, conversion, bool(detail.get("quarantine")), strict)
            self.regroup(change.recorded_at, strict, "the retype")
        else:
            self._reshape(change.attribute, Cardinality(detail["to"]), change.recorded_at, strict)

    def _retype(self, attribute: str, conversion: ValueConversion, quarantine: bool, strict: bool) -> None:
        """Convert every value the attribute holds; set aside what does not convert (an
        error unless ``quarantine``), and give back what the conversion now converts."""
        earlier = set(self.quarantined)
        unconverted: list[str] = []
        for op in self.ops:
            current = self.value_of(op)
            if current is None or self.attribute_of(op) != attribute or not conversion.reaches(op):
                continue
            if op.seq in earlier:
                current = self.quarantined[op.seq][1]
            converted = conversion(op, current)
            if converted is not None:
                self.values[op.seq] = converted
                self.quarantined.pop(op.seq, None)
            elif op.seq not in earlier:
                unconverted.append(current)
                self.quarantined[op.seq] = (op, current)
        if unconverted and strict and not quarantine:
            if self.refused is not None:
                self.refused.update((seq, value) for seq, (op, value) in self.quarantined.items()
                                    if seq not in earlier and self.attribute_of(op) == attribute)
                return
            raise conversion.refused(attribute, unconverted)

    def _reshape(self, attribute: str, cardinality: Cardinality, at: int, strict: bool) -> None:
        """One -> many: each version becomes its value's member over the same interval;
        many -> one: each member's versions become the key's (a conflict if two members
        hold at one instant)."""
        if self.cardinality(attribute) is cardinality:
            return
        groups: dict[Key, list[Version]] = {}
        for key, timeline in list(self.timelines.items()):
            base, purpose = split_attribute(key[1])
            if resolve(self.attribute_edges, base) != attribute:
                continue
            versions = ended_all(timeline.current)
            if cardinality is Cardinality.MANY:
                for op in self.ops:
                    if op.kind is OpKind.RETRACT and self.key_of(op) == key:
                        closed = next((v for v in versions if v.valid_to == op.valid_at
                                       and v.closed_by == op.source), None)
                        if closed is not None:
                            self.retracted_member[op.seq] = closed.value
            self._retire(key, at)
            groups.setdefault((key[0], ledger_attribute(attribute, purpose)), []).extend(versions)
        self.cardinalities[attribute] = cardinality
        for (subject, timeline_attribute), versions in groups.items():
            if cardinality is Cardinality.MANY:
                for version in versions:
                    self._carry((subject, f"{timeline_attribute}{MEMBER}{version.value}"), [version], at)
                continue
            versions.sort(key=lambda v: v.valid_from)
            for earlier, later in zip(versions, versions[1:], strict=False):
                if strict and (earlier.valid_to is None or earlier.valid_to > later.valid_from):
                    raise ConflictError(
                        f"cardinality: two members of {subject}.{attribute} hold at one instant ({earlier.value} "
                        f"and {later.value}); one value per instant cannot hold both",
                        field="cardinality", value=cardinality.value)
            self._carry((subject, timeline_attribute), versions, at)
        self.derived_from = {}
        for op in self.ops:
            placed = self.key_of(op)
            if placed is not None and op.seq not in self.quarantined:
                self.derived_from.setdefault(placed, []).append((op.seq, self.value_of(op)))

    def _carry(self, key: Key, versions: Sequence[Version], at: int) -> None:
        """``versions`` of another shape as current versions of ``key`` from ``at`` on."""
        existing = self.timelines.pop(key, None)
        carried = [replace(v, attribute=key[1], recorded_from=at, recorded_to=None, row_id=None) for v in versions]
        timeline = self.timeline(key, ([] if existing is None else existing.current) + carried)
        if existing is not None:
            timeline.retired = existing.retired
        self.timelines[key] = timeline

    def regroup(self, at: int, strict: bool, what: str) -> None:
        """Names or values changed at ``at``: every key whose operations changed is
        retired there and derived again, as recorded at ``at``, from the ones it now has."""
        regrouped: dict[Key, list[Operation]] = {}
        for op in self.ops:
            placed = None if op.seq in self.quarantined else self.key_of(op)
            if placed is not None:
                regrouped.setdefault(placed, []).append(op)
        derived: dict[Key, list[tuple[int, str | None]]] = {}
        for key in set(self.derived_from) | set(regrouped):
            ops = regrouped.get(key, [])
            derived[key] = [(op.seq, self.value_of(op)) for op in ops]
            if derived[key] == self.derived_from.get(key, []):
                continue
            self._retire(key, at)
            timeline = self.timeline(key)
            for op in ops:
                try:
                    timeline.apply(self.placed(op, key, at))
                except ConflictError as exc:
                    if strict:
                        raise ConflictError(f"{what} would give {key[0]}.{key[1].partition(MEMBER)[0]} two values "
                                            f"at one valid_from: {exc.message}", field="name") from None
                except NotFoundError:
                    pass
            self.timelines[key] = timeline
        self.derived_from = {key: found for key, found in derived.items() if found}

    def _retire(self, key: Key, at: int) -> None:
        timeline = self.timelines.pop(key, None)
        if timeline is None:
            return
        kept = self.archive.setdefault(key, [])
        kept += timeline.retired
        kept += [replace(v, recorded_to=at, row_id=None) for v in timeline.current if v.recorded_from != at]

    def versions(self) -> dict[Key, list[Version]]:
        """Every version of every key, retired ones included, as they are to be stored."""
        keys = set(self.archive) | set(self.timelines)
        return {key: self.archive.get(key, []) + (self.timelines[key].all_versions() if key in self.timelines else [])
                for key in keys}


def derive(ops: Sequence[Operation], events: Sequence[Event], cardinality_of: Callable[[str], Cardinality],
           strict: Ident | None = None, conversions: Mapping[int, ValueConversion] | None = None,
           refused: dict[int, str] | None = None, relation_of: Callable[[str], bool] | None = None) -> Derivation:
    """Replay ``ops`` (by ``seq``) and ``events`` (by place) into keys; ``strict``: the
    step being taken now, whose impossible merge or conversion is an error;
    ``conversions``: the retype steps that convert otherwise than by their value type;
    ``relation_of``: which attributes were relations before their first change."""
    ordered = sorted(events, key=lambda e: e.order)
    derivation = Derivation(cardinality_of, refused=refused, conversions=conversions or {},
                            relation_of=relation_of or (lambda attribute: False))
    index = 0
    for op in ops:
        while index < len(ordered) and ordered[index].order < (op.seq, 0, 0, 0, 0):
            ordered[index].apply(derivation, ordered[index].ident == strict)
            index += 1
        derivation.apply(op)
    for event in ordered[index:]:
        event.apply(derivation, event.ident == strict)
    return derivation


def first_cardinality(
    declared: Callable[[str], AttributeSchema | None], changes: Sequence[ChangeRow],
) -> Callable[[str], Cardinality]:
    """An attribute's cardinality before its first recorded change (as ``declared`` now
    if it has none)."""
    def cardinality_of(attribute: str) -> Cardinality:
        for change in changes:
            detail = json.loads(change.detail)
            if change.attribute == attribute and change.kind in ("cardinality", "rename"):
                return Cardinality(detail["from_cardinality"])
            if change.kind == "rename" and detail["to"] == attribute and detail.get("to_cardinality"):
                return Cardinality(detail["to_cardinality"])
        schema = declared(attribute)
        return Cardinality.ONE if schema is None else schema.cardinality

    return cardinality_of


def first_relation(
    declared: Callable[[str], AttributeSchema | None], changes: Sequence[ChangeRow],
) -> Callable[[str], bool]:
    """Whether an attribute was a relation before its first retype (as ``declared`` now
    if it has none)."""
    def relation_of(attribute: str) -> bool:
        for change in changes:
            detail = json.loads(change.detail)
            if change.attribute == attribute and change.kind == "retype" and "type" in detail:
                return bool(detail.get("from_type") == ValueType.SUBJECT.value)
        schema = declared(attribute)
        return schema is not None and schema.value_type is ValueType.SUBJECT

    return relation_of


def derive_subjects(
    source: SubjectReads, declared: Callable[[str], AttributeSchema | None], subjects: Collection[str],
    attributes: Collection[str], ops: Sequence[Operation] | None = None, strict: Ident | None = None,
    refused: dict[int, str] | None = None, taking: ValueConversion | None = None,
) -> Derivation:
    """The keys of ``attributes`` of ``subjects`` (a closed alias family) as their
    operations and every recorded step derive them, stored or not: a backfill's batch
    stores them, a read of a key its backfill has not reached answers from them.
    ``taking``: as for ``rederive``."""
    if ops is None:
        ops = source.operations_of_subjects(sorted(subjects))
    ops = [op for op in ops if split_attribute(op.attribute)[0] in attributes]
    changes = source.ledger_changes()
    events = [*alias_events(source.alias_steps()), *change_events(changes)]
    conversions = recorded_conversions(source, changes, ops)
    if taking is not None and strict is not None:
        conversions[strict[1]] = taking
    return derive(ops, events, first_cardinality(declared, changes), strict, conversions, refused,
                  first_relation(declared, changes))


def rederive(
    txn: WriteTransaction, *, subjects: Collection[str] | None = None, attributes: Collection[str] | None = None,
    strict: Ident | None = None, ops: Sequence[Operation] | None = None,
    taking: ValueConversion | None = None,
) -> Derivation:
    """Derive again, from their operations and every recorded step, the keys of
    ``subjects`` (every attribute) or of ``attributes`` (every subject), or of both
    (their intersection); store every version and what retypes set aside. ``ops``: the
    scope's operations, when the caller (a step, to time itself) has read them already;
    ``taking``: the conversion of the ``strict`` step, when it is not its value type's."""
    if subjects is not None:
        if ops is None:
            ops = txn.operations_of_subjects(sorted(subjects))
        existing = txn.version_keys(sorted(subjects))
        if attributes is not None:
            ops = [op for op in ops if split_attribute(op.attribute)[0] in attributes]
            existing = [key for key in existing if split_attribute(key[1])[0] in attributes]
    else:
        assert attributes is not None
        if ops is None:
            ops = txn.operations_of_attributes(sorted(attributes))
        existing = txn.attribute_version_keys(sorted(attributes))
    changes = txn.ledger_changes()
    events = [*alias_events(txn.alias_steps()), *change_events(changes)]
    conversions = recorded_conversions(txn, changes, ops)
    if taking is not None and strict is not None:
        conversions[strict[1]] = taking
    derivation = derive(ops, events, first_cardinality(txn.attribute_schema, changes), strict, conversions,
                        relation_of=first_relation(txn.attribute_schema, changes))
    derived = derivation.versions()
    for subject, attribute in set(existing) | set(derived):
        txn.replace_versions(subject, attribute, derived.get((subject, attribute), []))
    rows = [QuarantineRow(seq, resolve(derivation.subject_edges, op.subject), derivation.attribute_of(op), value,
                          _since(changes, derivation.attribute_of(op)))
            for seq, (op, value) in derivation.quarantined.items()]
    txn.replace_quarantine([op.seq for op in ops], rows)
    return derivation


def recorded_conversions(
    txn: SubjectReads, changes: Sequence[ChangeRow], ops: Sequence[Operation],
) -> dict[int, ValueConversion]:
    """The memory type versions among ``changes``, as their functions left ``ops``."""
    typed = {change.seq: name for change in changes if (name := memory_type_of(change)) is not None}
    if not typed:
        return {}
    rows: dict[int, dict[int, ConvertedRow]] = {seq: {} for seq in typed}
    for row in txn.converted_values([op.seq for op in ops]):
        if row.step in rows:
            rows[row.step][row.seq] = row
    return {seq: RecordedConversion(name, rows[seq]) for seq, name in typed.items()}


def _since(changes: Sequence[ChangeRow], attribute: str) -> int:
    """When the attribute's values were last retyped (what set a value aside)."""
    return max((c.recorded_at for c in changes if c.kind == "retype" and c.attribute == attribute), default=0)
