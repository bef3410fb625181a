"""``Memory``'s schema migrations: rename and retype an attribute as recorded steps, the
values a retype set aside, and the tenant's history of steps (``sgam.ledger.migrations``)."""

from __future__ import annotations

import json
from typing import Any

from .._core.model import Quarantined, SchemaChange
from .._core.schema import AttributeSchema, Cardinality, parse_value_type
from .._core.time import from_micros
from .._core.values import check_name, check_optional_name, check_tenant, load_value
from ..ledger import migrations
from ..ledger.service import Ledger
from ..store import ChangeRow, Reader, WriteTransaction


class SchemaCalls:
    """``Memory``'s rename and retype as recorded steps, the quarantine, the history of
    steps: a part the facade delegates to, working through the ledger service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def rename_attribute(
        self, tenant: str, attribute: str, to: str, *, decided_by: str | None = None, origin: str | None = None,
    ) -> SchemaChange:
        """From now on ``attribute`` is called ``to``: every assertion of it, history
        included, is read under ``to`` (merged with those of ``to``: a ``ConflictError``,
        changing nothing, if a key would get two values at one ``valid_from``), and the
        old name keeps working for reads and writes. Reads with an earlier ``known_at``
        answer under the old name."""
        check_tenant(tenant)
        old, new = check_name(attribute, "attribute"), check_name(to, "to")
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        return self._migrate(tenant, lambda txn: migrations.rename(txn, old, new, self.ledger.now(), who, where))

    def retype(
        self, tenant: str, attribute: str, value_type: str, *, map: object = None,  # noqa: A002 - the step's field
        quarantine: bool = False, decided_by: str | None = None, origin: str | None = None,
    ) -> SchemaChange:
        """Declare ``value_type`` for ``attribute`` and convert every value it ever held,
        history included, from now on in transaction time: a value ``map`` lists (pairs
        ``[old, new]``) becomes its ``new``; a value of the new type stays; else the
        built-in conversions of the replay format apply. A value with no conversion is a
        ``ValidationError`` (nothing changes) unless ``quarantine`` sets it aside."""
        check_tenant(tenant)
        name, new_type = check_name(attribute, "attribute"), parse_value_type(value_type)
        who, where = check_optional_name(decided_by, "decided_by"), check_optional_name(origin, "origin")
        return self._migrate(tenant, lambda txn: migrations.retype(
            txn, name, new_type, map, quarantine, self.ledger.now(), who, where))

    def quarantined(self, tenant: str, attribute: str | None = None) -> list[Quarantined]:
        """The values retypes set aside (of ``attribute``, or of every attribute), each
        with the reason."""
        check_tenant(tenant)
        name = check_optional_name(attribute, "attribute")
        with self.ledger.read(tenant, "quarantined") as reader:
            rows = reader.quarantined(None if name is None else reader.resolve_attribute(name))
            reasons = {row.seq: row.reason for row in reader.converted_values([r.seq for r in rows]) if row.reason}
            declared = {r.attribute: reader.declared(r.attribute) for r in rows}
        return [Quarantined(tenant, r.subject, r.attribute, load_value(r.value), from_micros(r.since), r.seq,
                            reasons.get(r.seq) or _no_conversion(declared[r.attribute])) for r in rows]

    def schema_history(self, tenant: str) -> list[SchemaChange]:
        """Every schema migration step of the tenant, in the order taken."""
        check_tenant(tenant)
        with self.ledger.read(tenant, "schema_history") as reader:
            return [_change(tenant, row) for row in reader.ledger_changes()]

    def _migrate(self, tenant: str, step: Any) -> SchemaChange:
        def work(txn: WriteTransaction) -> SchemaChange:
            return _change(tenant, step(txn))

        return self.ledger.run_write(tenant, work, "migrate")


def cardinality_at(reader: Reader, attribute: str, known_at: int | None) -> Cardinality:
    """The attribute's cardinality as the ledger stood at ``known_at`` (default now):
    the shape before the first change recorded after it, else as declared now. Only a
    set asks for the changes: an attribute made one-valued from a set reads in its new
    shape at every ``known_at`` (the old members are answered by ``members``)."""
    declared = reader.declared(attribute)
    current = Cardinality.ONE if declared is None else declared.cardinality
    if known_at is not None and current is Cardinality.MANY:
        for change in reader.ledger_changes():
            if change.kind == "cardinality" and change.attribute == attribute and change.recorded_at > known_at:
                return Cardinality(json.loads(change.detail)["from_cardinality"])
    return current


def _no_conversion(declared: AttributeSchema | None) -> str:
    shown = declared.value_type.value if declared is not None and declared.value_type is not None else "the new type"
    return f"no conversion to {shown}"


def _change(tenant: str, row: ChangeRow) -> SchemaChange:
    return SchemaChange(tenant, row.seq, row.kind, row.attribute, json.loads(row.detail), from_micros(row.recorded_at),
                        row.decided_by, row.origin)
