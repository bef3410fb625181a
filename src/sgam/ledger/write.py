"""The write service: validate, then apply the ledger's rules inside one unit of work.

Checks run in the order the replay format fixes: validation (shape, timestamps, declared
types), then denied (consent), then not_found (unknown episode, class or target), then
conflict. Nothing is written unless every check passes; the backend's transaction makes
that all-or-nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

from pydantic import BaseModel

from .._core.errors import ConflictError, NotFoundError, SgamError, ValidationError
from .._core.model import Fact
from .._core.purpose import allowed, check_purpose, ledger_attribute, member_attribute, refuse
from .._core.retention import DEFAULT_CLASS, check_class_name
from .._core.rules import Effect, KeyTimeline, Operation, OpKind, Plan, Version, plan
from .._core.schema import (
    DEFAULT_MEMORY_TYPE,
    AttributeSchema,
    Cardinality,
    ValueType,
    check_memory_value,
    check_value_type,
)
from .._core.secret import Digests
from .._core.time import Clock, parse_timestamp, to_micros
from .._core.values import (
    MAX_METADATA_BYTES,
    canonical_json,
    check_confidence,
    check_name,
    check_optional_name,
    check_subject,
    check_text,
)
from ..store import EpisodeRow, OneFactWrite, SchemaLookups, WriteTransaction, apply_plan
from .backfill import convert_key
from .migrations import current_name, reshape, values_not_of_type
from .relations import value_comparison

EPISODE_KINDS = ("message", "tool_result", "event", "document")
MAX_MEMBER_BYTES = 1024
"""A member of a set names its own key: bounded so every index over keys can hold it."""
MAX_DERIVED_FROM = 1000


@dataclass(slots=True)
class Applied:
    """What one operation did, in storage terms; the facade turns it into a WriteResult."""

    seq: int
    effect: Effect
    version: Version | None

    @classmethod
    def of(cls, seq: int, decided: Plan) -> Applied:
        """The version in force after ``decided`` is the last one it adds."""
        return cls(seq, decided.effect, decided.add[-1] if decided.add else None)


@dataclass(slots=True)
class PendingOp:
    """A validated operation that has not met the database yet."""

    subject: str
    attribute: str
    kind: OpKind
    valid_at: int
    value: Any
    source: str
    memory_type: str | None
    confidence: float
    field_prefix: str = ""
    purpose: str | None = None
    expires_at: int | None = None
    spelling: str | None = None
    """The subject as the caller spelled it (its display name if it is the first)."""

    @property
    def ledger_attribute(self) -> str:
        return ledger_attribute(self.attribute, self.purpose)


def validate_op(
    kind: OpKind,
    subject: object,
    attribute: object,
    moment: object,
    source: object,
    value: Any = None,
    memory_type: object = None,
    confidence: object = 1.0,
    field_prefix: str = "",
    purpose: object = None,
    expires_at: object = None,
) -> PendingOp:
    """Shape checks that need no database; declared types, and ``expires_at`` against the
    clock, are checked in the transaction."""
    moment_field = "at" if kind is OpKind.RETRACT else "valid_from"
    if kind is not OpKind.RETRACT and value is None:
        raise ValidationError(f"{field_prefix}value", value, "must not be null (retract instead)")
    if memory_type is not None:
        check_name(memory_type, f"{field_prefix}memory_type")
    return PendingOp(
        subject=check_subject(subject, f"{field_prefix}subject"),
        attribute=check_name(attribute, f"{field_prefix}attribute"),
        kind=kind,
        valid_at=to_micros(parse_timestamp(moment, f"{field_prefix}{moment_field}")),
        value=value,
        source=check_name(source, f"{field_prefix}source"),
        memory_type=memory_type,  # type: ignore[arg-type]
        confidence=check_confidence(confidence),
        field_prefix=field_prefix,
        purpose=check_purpose(purpose, f"{field_prefix}purpose"),
        expires_at=None if expires_at is None else to_micros(parse_timestamp(expires_at, f"{field_prefix}expires_at")),
        spelling=" ".join(subject.split()),  # type: ignore[attr-defined]
    )


class WriteService:
    """Applies validated operations to a backend transaction."""

    def __init__(self, clock: Clock, models: dict[tuple[str, str], type[BaseModel]], digests: Digests) -> None:
        self.clock = clock
        self._models = models
        self.digests = digests

    def now(self) -> int:
        return to_micros(self.clock())

    def prepare(self, txn: WriteTransaction, op: PendingOp, version: int) -> Operation:
        """Type-check against the tenant's schema, check consent and the source, and
        encode the value."""
        typed = self.typed(txn, op, version)
        self.check_consent(txn, op)
        self.check_source(txn, op)
        return typed

    def check_consent(self, txn: WriteTransaction, op: PendingOp) -> None:
        """The subject's consent, and for a write of a relation the consent of the
        subject its value names."""
        if not allowed(txn.consents(op.subject), op.purpose):
            raise refuse(op.subject, op.purpose, f"{op.field_prefix}subject")
        if op.kind is not OpKind.RETRACT and isinstance(op.value, str):  # a correction writes a value too
            declared = txn.attribute_schema(op.attribute)
            if declared is not None and declared.value_type is ValueType.SUBJECT:
                target = check_subject(op.value, f"{op.field_prefix}value")
                if not allowed(txn.consents(target), op.purpose):
                    raise refuse(target, op.purpose, f"{op.field_prefix}value")

    def check_source(self, txn: WriteTransaction, op: PendingOp) -> None:
        source = txn.episode(op.source)
        if source is None or not source.readable:
            raise NotFoundError(
                f"{op.field_prefix}source: no episode {op.source!r} in tenant {txn.tenant!r}",
                field=f"{op.field_prefix}source", value=op.source,
            )

    def typed(self, txn: SchemaLookups, op: PendingOp, version: int) -> Operation:
        """The validation half of ``prepare``: declared value type and memory type; a
        member of a set gets its own timeline (the key names the member)."""
        value_text: str | None = None
        op.attribute = current_name(txn, op.attribute)  # an old name means the attribute it was renamed to
        declared = txn.attribute_schema(op.attribute)
        memory_type = op.memory_type or (declared.memory_type if declared else None) or DEFAULT_MEMORY_TYPE
        field = f"{op.field_prefix}value"
        is_set = declared is not None and declared.cardinality is Cardinality.MANY
        if is_set and op.kind is OpKind.CORRECT:
            raise ValidationError(f"{op.field_prefix}attribute", op.attribute,
                                  "holds a set (cardinality many): a member cannot be corrected; retract the "
                                  "member, or forget its source")
        if is_set and op.kind is OpKind.RETRACT and op.value is None:
            raise ValidationError(field, None, f"a retract of {op.attribute!r}, a set (cardinality many), "
                                               "names the member to retract")
        if op.kind is OpKind.RETRACT and not is_set and op.value is not None:
            raise ValidationError(field, op.value, f"only a retract of a set (cardinality many) names a member; "
                                                   f"{op.attribute!r} holds one value at a time")
        if op.kind is not OpKind.RETRACT or is_set:
            value_type = declared.value_type if declared else None
            check_value_type(op.value, value_type, field)
            value = check_subject(op.value, field) if value_type is ValueType.SUBJECT else op.value
            value_text = canonical_json(value, field)
            self._check_memory_type(txn, memory_type, value)
        if op.expires_at is not None and op.expires_at <= self.now():
            raise ValidationError(f"{op.field_prefix}expires_at", op.expires_at, "must be later than now")
        attribute = op.ledger_attribute
        if is_set:
            assert value_text is not None
            if len(value_text.encode()) > MAX_MEMBER_BYTES:
                raise ValidationError(field, f"<{len(value_text.encode())} bytes>",
                                      f"a member of a set is at most {MAX_MEMBER_BYTES} bytes of JSON")
            attribute = member_attribute(op.attribute, op.purpose, value_text)
            if op.kind is OpKind.RETRACT:
                value_text = None
        return Operation(
            seq=0, subject=op.subject, attribute=attribute, kind=op.kind, valid_at=op.valid_at,
            value=value_text, source=op.source, recorded_at=0, memory_type=memory_type,
            confidence=op.confidence, schema_version=version, expires_at=op.expires_at,
        )

    def _check_memory_type(self, txn: SchemaLookups, name: str, value: Any) -> None:
        model = self._models.get((txn.tenant, name))
        stored = txn.memory_type(name)
        if stored is not None:
            check_memory_value(value, stored, model)

    def _transaction_time(self, txn: WriteTransaction, subject: str, attribute: str) -> int:
        """The clock's instant, never earlier than the key's last recorded change, so that
        recorded intervals stay ordered even if the wall clock steps back."""
        now = self.now()
        last = txn.last_recorded_at(subject, attribute)
        return now if last is None or last <= now else last

    def check(self, txn: WriteTransaction, pending: PendingOp) -> None:
        """Raise what ``apply_one`` would raise, writing nothing: lets several decisions
        share one transaction without a refused one leaving a logged operation behind."""
        op = self.prepare(txn, pending, txn.schema_version())
        op.subject = txn.resolve_subject(op.subject)
        op.recorded_at = self._transaction_time(txn, op.subject, op.attribute)
        convert_key(txn, op.subject, op.attribute)
        plan(op, txn.key(op.subject, op.attribute), value_comparison(txn, op.attribute))

    @staticmethod
    def prefetch(txn: WriteTransaction, pending: PendingOp) -> None:
        txn.prefetch_one(OneFactWrite(pending.subject, pending.ledger_attribute, pending.valid_at, pending.source))

    def apply_one(self, txn: WriteTransaction, pending: PendingOp, *, prefetched: bool = False) -> Applied:
        """``prefetched``: the caller has already called ``prefetch`` in this unit of work."""
        if not prefetched:
            self.prefetch(txn, pending)
        op = self.prepare(txn, pending, txn.schema_version())
        meant = txn.resolve_subject(op.subject)
        if meant != op.subject:  # an alias: the key is the subject it means
            txn.lock_keys([(meant, op.attribute)])
        convert_key(txn, meant, op.attribute)  # a key a backfill has not reached: derived before it is planned
        op.recorded_at = self._transaction_time(txn, meant, op.attribute)
        op.seq = txn.append_operation(op)  # the operation keeps the name it was given
        if pending.spelling is not None:
            txn.note_spellings([(op.subject, pending.spelling)])
        op.subject = meant
        decided: Plan = plan(op, txn.key(op.subject, op.attribute), value_comparison(txn, op.attribute))
        apply_plan(txn, decided, op.recorded_at)
        return Applied.of(op.seq, decided)

    def apply_batch(self, txn: WriteTransaction, batch: list[PendingOp]) -> list[Applied]:
        """Apply many writes in one transaction: each key is planned in memory, then only
        the net change of the batch reaches the database."""
        version = txn.schema_version()
        # validation of every fact before not_found of any, as for a single operation
        ops = [self.typed(txn, pending, version) for pending in batch]
        txn.prefetch_episodes([pending.source for pending in batch])
        for pending in batch:
            self.check_consent(txn, pending)
        for pending in batch:
            self.check_source(txn, pending)
        meaning = {subject: txn.resolve_subject(subject) for subject in {op.subject for op in ops}}
        by_key: dict[tuple[str, str], list[int]] = {}
        for index, op in enumerate(ops):
            by_key.setdefault((meaning[op.subject], op.attribute), []).append(index)
        txn.lock_keys(list(by_key), [min(ops[index].valid_at for index in indexes) for indexes in by_key.values()])
        for subject, attribute in by_key:
            convert_key(txn, subject, attribute)
        recorded_at = self.now()
        for subject, attribute in by_key:
            last = txn.last_recorded_at(subject, attribute)
            if last is not None and last > recorded_at:
                recorded_at = last
        for op in ops:
            op.recorded_at = recorded_at
        for op, seq in zip(ops, txn.append_operations(ops), strict=True):
            op.seq = seq
        spellings = [(op.subject, p.spelling) for op, p in zip(ops, batch, strict=True) if p.spelling is not None]
        if spellings:
            txn.note_spellings(spellings)
        for op in ops:  # logged under the names given, planned under the subjects they mean
            op.subject = meaning[op.subject]
        results: list[Applied | None] = [None] * len(ops)
        inserts: list[Version] = []
        for (subject, attribute), indexes in by_key.items():
            same = value_comparison(txn, attribute)
            if len(indexes) == 1:
                # One operation on this key: plan it against index lookups, as apply_one
                # does, instead of loading every current version of the key.
                index = indexes[0]
                with _naming_entry(index):
                    decided = plan(ops[index], txn.key(subject, attribute), same)
                results[index] = Applied.of(ops[index].seq, decided)
                txn.retire(decided.retire, recorded_at)
                inserts.extend(decided.add)
                continue
            stored = txn.current(subject, attribute)
            timeline = KeyTimeline(stored, same)
            for index in indexes:
                with _naming_entry(index):
                    decided = timeline.apply(ops[index])
                results[index] = Applied.of(ops[index].seq, decided)
            current = timeline.current
            kept = {id(v) for v in current}
            txn.retire([v for v in stored if id(v) not in kept], recorded_at)
            inserts.extend(v for v in current if v.row_id is None)
        if inserts:
            txn.insert_versions(inserts)
        return [result for result in results if result is not None]

    def add_episode(self, txn: WriteTransaction, row: EpisodeRow, derived_from: tuple[str, ...] = ()) -> EpisodeRow:
        """Record an episode of a declared class, made from readable episodes. An id that
        was erased or lost its text stays reserved (tombstone): a stale copy is refused."""
        return self.add_episodes(txn, [(row, derived_from)])[0]

    def add_episodes(
        self, txn: WriteTransaction, items: Sequence[tuple[EpisodeRow, tuple[str, ...]]],
    ) -> list[EpisodeRow]:
        """``add_episode`` for each item in order (the stored row per item), with one
        tombstone lookup for the batch and the new rows inserted together: per-episode
        statements were most of an ingest's round trips. An id repeated in the batch, or a
        ``derived_from`` naming an earlier episode of it, is answered from the batch."""
        erased = txn.tombstoned_among([self.digests.of(txn.tenant, "episode", row.episode_id) for row, _ in items])
        added: dict[str, tuple[EpisodeRow, tuple[str, ...]]] = {}
        stored = [self._admit(txn, row, derived_from, erased, added) for row, derived_from in items]
        if added:
            txn.insert_episodes([row for row, _ in added.values()])
        for row, derived_from in added.values():
            if derived_from:
                txn.insert_derivations(row.episode_id, derived_from)
        return stored

    def _admit(
        self, txn: WriteTransaction, row: EpisodeRow, derived_from: tuple[str, ...], erased: set[str],
        added: dict[str, tuple[EpisodeRow, tuple[str, ...]]],
    ) -> EpisodeRow:
        """The stored episode ``row`` stands for, after the checks; a new one joins ``added``."""
        if row.retention != DEFAULT_CLASS and txn.retention_class(row.retention) is None:
            raise NotFoundError(
                f"retention: no retention class {row.retention!r} in tenant {txn.tenant!r}",
                field="retention", value=row.retention,
            )
        for source in derived_from:
            found = added[source][0] if source in added else txn.episode(source)
            if found is None or not found.readable:
                raise NotFoundError(
                    f"derived_from: no readable episode {source!r} in tenant {txn.tenant!r}",
                    field="derived_from", value=source,
                )
        earlier = added.get(row.episode_id)
        existing = earlier[0] if earlier is not None else txn.episode(row.episode_id)
        if existing is not None:
            if not existing.readable:
                raise ConflictError(
                    f"episode id {row.episode_id!r} lost its text by expiry; the id stays reserved",
                    field="id", value=row.episode_id,
                )
            sources = (set(earlier[1]) if earlier is not None
                       else {source for _, source in txn.derivations([row.episode_id])})
            if existing.same_content(row) and sources == set(derived_from):
                return existing
            raise ConflictError(
                f"episode id {row.episode_id!r} is already recorded with other content",
                field="id", value=row.episode_id,
            )
        if self.digests.of(txn.tenant, "episode", row.episode_id) in erased:
            raise ConflictError(
                f"episode id {row.episode_id!r} was erased; the id stays reserved so a stale copy is not "
                "ingested again", field="id", value=row.episode_id,
            )
        row.schema_version = txn.schema_version()
        row.recorded_at = self.now()
        added[row.episode_id] = (row, derived_from)
        return row

    def declare(
        self, txn: WriteTransaction, schema: AttributeSchema, cardinality: Cardinality | None = None,
        decided_by: str | None = None, origin: str | None = None, *, backfill: bool | None = None,
    ) -> AttributeSchema:
        """Record ``schema``; ``cardinality`` None keeps the attribute's (default one).
        Changing the cardinality of an attribute that holds data re-shapes it from now
        on, a recorded migration step (``ledger.migrations.reshape``; ``backfill`` as there)."""
        earlier = txn.attribute_schema(schema.attribute)
        kept = earlier.cardinality if earlier is not None else Cardinality.ONE
        chosen = kept if cardinality is None else cardinality
        if chosen is not kept and txn.attribute_in_use(schema.attribute):
            reshape(txn, schema.attribute, chosen, self.now(), decided_by, origin, backfill=backfill)
        version = txn.bump_schema_version()
        stamped = AttributeSchema(
            schema.attribute, schema.value_type, schema.memory_type, schema.sensitive,
            schema.description, version, chosen,
        )
        txn.put_attribute_schema(stamped)
        retyped = schema.value_type is not None and (earlier is None or earlier.value_type is not schema.value_type)
        others = values_not_of_type(txn, schema.attribute, schema.value_type) if retyped else 0
        if not others:
            return stamped
        shown = schema.value_type.value if schema.value_type is not None else ""
        return replace(stamped, not_of_type=others, note=(
            f"{others} stored value(s) of {schema.attribute!r} are not of type {shown}: a declaration converts "
            f"nothing and reads answer them as stored; retype {schema.attribute!r} to {shown} to convert them"))


def validate_episode(
    episode_id: object, at: object, text: object, speaker: object, kind: object,
    session: object, metadata: object, tenant: str, retention: object = DEFAULT_CLASS,
) -> EpisodeRow:
    if kind not in EPISODE_KINDS:
        raise ValidationError("kind", kind, f"must be one of {', '.join(EPISODE_KINDS)}")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValidationError("metadata", metadata, "must be a JSON object")
    if isinstance(text, str) and not text.strip():
        raise ValidationError("text", text, "must not be empty: an episode is evidence, and empty text is none")
    return EpisodeRow(
        tenant=tenant,
        episode_id=check_name(episode_id, "id"),
        occurred_at=to_micros(parse_timestamp(at, "at")),
        recorded_at=0,
        text=check_text(text, "text"),
        speaker=check_optional_name(speaker, "speaker"),
        kind=str(kind),
        session=check_optional_name(session, "session"),
        metadata=canonical_json(metadata or {}, "metadata", MAX_METADATA_BYTES),
        schema_version=0,
        retention=check_class_name(retention, "retention"),
    )


def validate_derived_from(value: object, field: str = "derived_from") -> tuple[str, ...]:
    """Episode ids an episode was made from; order and repeats do not matter."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ValidationError(field, value, "must be a list of episode ids")
    ids = list(islice(value, MAX_DERIVED_FROM + 1))
    if len(ids) > MAX_DERIVED_FROM:
        raise ValidationError(field, "<more ids>", f"at most {MAX_DERIVED_FROM} episode ids")
    return tuple(sorted({check_name(item, field) for item in ids}))


def fact_to_pending(index: int, fact: Fact | dict[str, Any]) -> PendingOp:
    if not isinstance(fact, (Fact, dict)):  # batches often arrive as parsed JSON
        raise ValidationError(f"facts[{index}]", fact, "must be a Fact or a mapping of its fields")
    prefix = f"facts[{index}]."
    if not isinstance(fact, dict):  # a Fact has exactly the known fields: no dict round trip
        return validate_op(
            OpKind.WRITE, fact.subject, fact.attribute, fact.valid_from, fact.source, fact.value,
            fact.memory_type, fact.confidence, prefix, fact.purpose, fact.expires_at,
        )
    data = fact
    unknown = set(data) - {"subject", "attribute", "value", "valid_from", "source", "memory_type", "confidence",
                           "purpose", "expires_at"}
    if unknown:
        raise ValidationError(f"{prefix}{sorted(unknown)[0]}", data, "unknown field")
    return validate_op(
        OpKind.WRITE, data.get("subject"), data.get("attribute"), data.get("valid_from"),
        data.get("source"), data.get("value"), data.get("memory_type"),
        data.get("confidence", 1.0), prefix, data.get("purpose"), data.get("expires_at"),
    )


@contextmanager
def _naming_entry(index: int) -> Iterator[None]:
    """A refusal inside names the batch entry it came from."""
    try:
        yield
    except SgamError as exc:
        exc.message = f"facts[{index}]: {exc.message}"
        exc.args = (exc.message,)
        raise


def load_metadata(text: str) -> dict[str, Any]:
    data = json.loads(text)
    assert isinstance(data, dict)
    return data
