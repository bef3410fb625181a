"""``Memory``'s schema: declared attributes and typed memory types, their migrations
(rename and retype an attribute as recorded steps, a new version of a typed memory type),
the values a retype set aside, and the tenant's history of steps (``sgam.ledger.migrations``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from .._core.errors import NotFoundError, ValidationError
from .._core.model import Backfill, Quarantined, SchemaChange
from .._core.purpose import ConsentBook, split_attribute
from .._core.schema import (
    BUILTIN_MEMORY_TYPES,
    AttributeSchema,
    Cardinality,
    MemoryTypeSchema,
    ValueType,
    parse_cardinality,
    parse_value_type,
)
from .._core.time import from_micros
from .._core.values import (
    MAX_METADATA_BYTES,
    check_name,
    check_optional_name,
    check_tenant,
    check_text,
    load_value,
)
from ..ledger import migrations, model_versions
from ..ledger.backfill import BATCH, run_batch
from ..ledger.model_versions import Conversion
from ..ledger.service import Ledger
from ..store import BackfillRow, ChangeRow, WriteTransaction

Progress = Callable[[Backfill], None]


class SchemaCalls:
    """``Memory``'s declared schema, rename and retype as recorded steps, the quarantine,
    the history of steps: a part the facade delegates to, working through the ledger
    service alone. ``models``: the model classes of the typed memory types this process
    registered, by (tenant, name), shared with the write service that validates with them."""

    def __init__(self, ledger: Ledger, models: dict[tuple[str, str], type[BaseModel]]) -> None:
        self.ledger = ledger
        self._models = models

    def declare(
        self, tenant: str, attribute: str, value_type: ValueType | str | None, *,
        memory_type: str | None = None, sensitive: bool = False, description: str | None = None,
        cardinality: Cardinality | str | None = None,
    ) -> AttributeSchema:
        """Declare an attribute's value type (and optionally memory type, sensitivity,
        ``cardinality``: ``one``, or ``many`` for a set whose members each have their own
        timeline; None keeps what the attribute had, default one); later writes of other
        types are rejected. Bumps the tenant's schema version."""
        check_tenant(tenant)
        chosen = None if cardinality is None else parse_cardinality(cardinality)
        if not isinstance(sensitive, bool):
            raise ValidationError("sensitive", sensitive, "must be true or false")
        schema = AttributeSchema(
            attribute=check_name(attribute, "attribute"),
            value_type=None if value_type is None else parse_value_type(value_type),
            memory_type=check_optional_name(memory_type, "memory_type"),
            sensitive=bool(sensitive),
            description=None if description is None else check_text(description, "description", MAX_METADATA_BYTES),
        )
        return self.ledger.run_write(tenant, lambda txn: self.ledger.writes.declare(txn, schema, chosen), "declare")

    def register_memory_type(
        self, tenant: str, name: str, model: type[BaseModel], *, convert: Conversion | None = None,
        previous: type[BaseModel] | None = None, decided_by: str | None = None, origin: str | None = None,
        backfill: bool | None = None, wait: bool = True,
    ) -> MemoryTypeSchema:
        """Make ``name`` a typed memory type whose values must validate against ``model``.

        The model's JSON Schema is stored with the tenant's schema, so processes that do
        not have the model class still validate against it. A new version of a type that
        has stored values is a recorded step (``schema_history``): from now on in
        transaction time every value of the type, history included, reads as ``convert``
        makes it (the stored JSON as a dict, or an instance of ``previous`` when given ->
        a ``model`` instance or a dict); a value it fails on, or whose result ``model``
        refuses, is set aside (``quarantined``, with the reason). Without ``convert`` a
        stored value ``model`` refuses is a ``ValidationError`` naming the type, and
        nothing changes. ``backfill`` and ``wait``: as for ``retype`` (on a large type
        ``convert`` is called a batch of subjects at a time, and the stored versions are
        derived again by a backfill)."""
        check_tenant(tenant)
        check_name(name, "name")
        if name in BUILTIN_MEMORY_TYPES:
            raise ValidationError("name", name, "is a built-in memory type")
        for given, field in ((model, "model"), (previous, "previous")):
            if (given is not None or field == "model") and not (isinstance(given, type)
                                                                and issubclass(given, BaseModel)):
                raise ValidationError(field, given, "must be a pydantic BaseModel subclass")
        if convert is not None and not callable(convert):
            raise ValidationError("convert", convert, "must be a function: old value -> new value")
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        deferred = check_backfill(backfill)
        check_wait(wait)

        def register(txn: WriteTransaction) -> MemoryTypeSchema:
            return model_versions.register(txn, name, model, convert, previous, self.ledger.now(), who, where,
                                           backfill=deferred)

        registered = self.ledger.run_write(tenant, register, "register_memory_type")
        self._models[(tenant, name)] = model
        if wait:
            self.run_backfill(tenant)
        return registered

    def schema(self, tenant: str) -> tuple[list[AttributeSchema], list[MemoryTypeSchema]]:
        with self.ledger.read(check_tenant(tenant), "schema") as reader:
            return reader.attribute_schemas(), reader.memory_types()

    def rename_attribute(
        self, tenant: str, attribute: str, to: str, *, decided_by: str | None = None, origin: str | None = None,
        backfill: bool | None = None, wait: bool = True,
    ) -> SchemaChange:
        """From now on ``attribute`` is called ``to``: every assertion of it, history
        included, is read under ``to`` (merged with those of ``to``: a ``ConflictError``,
        changing nothing, if a key would get two values at one ``valid_from``), and the
        old name keeps working for reads and writes. Reads with an earlier ``known_at``
        answer under the old name. ``backfill`` and ``wait``: as for ``retype``."""
        check_tenant(tenant)
        old, new = check_name(attribute, "attribute"), check_name(to, "to")
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        deferred = check_backfill(backfill)
        return self._migrate(tenant, lambda txn: migrations.rename(txn, old, new, self.ledger.now(), who, where,
                                                                    backfill=deferred), wait)

    def retype(
        self, tenant: str, attribute: str, value_type: str, *, map: object = None,  # noqa: A002 - the step's field
        quarantine: bool = False, decided_by: str | None = None, origin: str | None = None,
        backfill: bool | None = None, wait: bool = True,
    ) -> SchemaChange:
        """Declare ``value_type`` for ``attribute`` and convert every value it ever held,
        history included, from now on in transaction time: a value ``map`` lists (pairs
        ``[old, new]``) becomes its ``new``; a value of the new type stays; else the
        built-in conversions of the replay format apply. A value with no conversion is a
        ``ValidationError`` (nothing changes) unless ``quarantine`` sets it aside.

        An attribute of more than ``BACKFILL_ABOVE`` subjects (or any, with ``backfill=True``;
        none, with ``False``) is backfilled: the step is recorded at once and its stored
        versions are converted a batch of subjects per transaction, reads converting on the
        fly until then. ``wait``: run that backfill to the end before returning (else
        ``run_backfill`` does, and ``backfills`` says how far it is)."""
        check_tenant(tenant)
        name, new_type = check_name(attribute, "attribute"), _value_type(value_type)
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        deferred = check_backfill(backfill)
        try:
            return self._migrate(tenant, lambda txn: migrations.retype(
                txn, name, new_type, map, quarantine, self.ledger.now(), who, where, backfill=deferred), wait)
        except ValidationError as exc:
            if exc.field != "type":
                raise
            raise ValidationError("value_type", exc.value, exc.rule) from None

    def backfills(self, tenant: str) -> list[Backfill]:
        """How far each migration step's backfill is, finished ones included, by step."""
        check_tenant(tenant)
        with self.ledger.read(tenant, "backfills") as reader:
            changes = {change.seq: change for change in reader.ledger_changes()}
            return [_backfill_of(tenant, row, changes[row.seq]) for row in reader.backfills()]

    def run_backfill(
        self, tenant: str, *, batch: int = BATCH, max_batches: int | None = None,
        progress: Progress | None = None, step: int | None = None,
    ) -> list[Backfill]:
        """Carry the tenant's unfinished backfills on, oldest step first, ``batch``
        subjects per transaction, calling ``progress`` after each commit; stop after
        ``max_batches`` batches (None: at the end). ``step``: that step's backfill alone,
        run and returned (a ``NotFoundError`` if the step has none). Safe to interrupt:
        what committed stays done, and the next call resumes after the last subject done."""
        check_tenant(tenant)
        size = _count(batch, "batch", 1)
        limit = None if max_batches is None else _count(max_batches, "max_batches", 0)
        ran = 0
        for pending in [b for b in self._chosen(tenant, step) if not b.finished]:
            def batch_of(txn: WriteTransaction, seq: int = pending.step) -> BackfillRow:
                return run_batch(txn, seq, size, self.ledger.now())

            while limit is None or ran < limit:
                row = self.ledger.run_write(tenant, batch_of, "backfill")
                ran += 1
                if progress is not None:
                    progress(_status(tenant, row, pending))
                if row.finished_at is not None:
                    break
        return self._chosen(tenant, step)

    def backfill(self, tenant: str, step: int) -> Backfill:
        """How far the backfill of migration step ``step`` is (a ``NotFoundError`` if the
        step has none)."""
        return self._chosen(tenant, step)[0]

    def _chosen(self, tenant: str, step: int | None) -> list[Backfill]:
        found = self.backfills(tenant)
        if step is None:
            return found
        seq = _count(step, "step", 1)
        chosen = [backfill for backfill in found if backfill.step == seq]
        if not chosen:
            raise NotFoundError(f"step {seq} has no backfill", field="step", value=seq)
        return chosen

    def quarantined(self, tenant: str, attribute: str | None = None) -> list[Quarantined]:
        """The values retypes set aside (of ``attribute``, or of every attribute), each
        with the reason; those of a subject whose consent is revoked (for the timeline's
        purpose) are left out, as every read leaves out what it knows of the subject."""
        check_tenant(tenant)
        name = check_optional_name(attribute, "attribute")
        with self.ledger.read(tenant, "quarantined") as reader:
            rows = reader.quarantined(None if name is None else reader.resolve_attribute(name))
            book = ConsentBook(reader.consents_among([r.subject for r in rows]))
            rows = [r for r in rows if book.allows(r.subject, split_attribute(r.attribute)[1])]
            reasons = {row.seq: row.reason for row in reader.converted_values([r.seq for r in rows]) if row.reason}
            declared = {r.attribute: reader.declared(r.attribute) for r in rows}
        return [Quarantined(tenant, r.subject, r.attribute, load_value(r.value), from_micros(r.since), r.seq,
                            reasons.get(r.seq) or _no_conversion(declared[r.attribute])) for r in rows]

    def schema_history(self, tenant: str) -> list[SchemaChange]:
        """Every schema migration step of the tenant, in the order taken."""
        check_tenant(tenant)
        with self.ledger.read(tenant, "schema_history") as reader:
            return [_change(tenant, row) for row in reader.ledger_changes()]

    def _migrate(self, tenant: str, step: Any, wait: bool = True) -> SchemaChange:
        check_wait(wait)

        def work(txn: WriteTransaction) -> SchemaChange:
            return _change(tenant, step(txn))

        change = self.ledger.run_write(tenant, work, "migrate")
        if wait:
            self.run_backfill(tenant)
        return change


def _value_type(value: object) -> ValueType:
    """``parse_value_type`` naming this call's argument, ``value_type``."""
    try:
        return parse_value_type(value)
    except ValidationError as exc:
        raise ValidationError("value_type", exc.value, exc.rule) from None


def _no_conversion(declared: AttributeSchema | None) -> str:
    shown = declared.value_type.value if declared is not None and declared.value_type is not None else "the new type"
    return f"no conversion to {shown}"


def _change(tenant: str, row: ChangeRow) -> SchemaChange:
    detail = json.loads(row.detail)
    if isinstance(detail.get("map"), list):  # stored as canonical JSON texts: answered as the values they are
        detail["map"] = [[load_value(old), load_value(new)] for old, new in detail["map"]]
    return SchemaChange(tenant, row.seq, row.kind, row.attribute, detail, from_micros(row.recorded_at),
                        row.decided_by, row.origin)


def check_backfill(value: object, field: str = "backfill") -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ValidationError(field, value, "must be true, false or null (by the attribute's size)")
    return value


def check_wait(value: object) -> None:
    if not isinstance(value, bool):
        raise ValidationError("wait", value, "must be true or false")


def _count(value: object, field: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValidationError(field, value, f"must be an integer of at least {least}")
    return value


def _status(tenant: str, row: BackfillRow, step: Backfill) -> Backfill:
    return Backfill(tenant, row.seq, step.kind, step.attribute, step.attributes, row.subjects_done,
                    row.subjects_total, row.batches_done, row.after_subject, from_micros(row.started_at),
                    None if row.finished_at is None else from_micros(row.finished_at))


def _backfill_of(tenant: str, row: BackfillRow, change: ChangeRow) -> Backfill:
    return Backfill(tenant, row.seq, change.kind, change.attribute, sorted(json.loads(row.attributes)),
                    row.subjects_done, row.subjects_total, row.batches_done, row.after_subject,
                    from_micros(row.started_at), None if row.finished_at is None else from_micros(row.finished_at))
