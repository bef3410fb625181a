"""Schema evolution as recorded steps (replay format 1, "Schema evolution"): rename an
attribute, retype it (a ``map``, the built-in conversions, ``quarantine``), change its
cardinality. Each step is taken at a transaction time; ``ledger.derivation`` replays the
attribute's log with it, so reads with an earlier ``known_at`` answer in the old shape
under the old name and later ones in the new, and erasure stays exact on both sides.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .._core.conversions import ValueConversion, check_map
from .._core.errors import ConflictError, NotFoundError, SgamError, ValidationError
from .._core.schema import AttributeSchema, Cardinality, ValueType, check_value_type
from ..store import ChangeRow, ConvertedRow, SchemaLookups, WriteTransaction
from . import backfill as backfills
from .derivation import Ident, rederive
from .families import renamed_family


def current_name(txn: SchemaLookups, attribute: str) -> str:
    """What ``attribute`` means now: renames followed through the declared schemas."""
    seen = {attribute}
    declared = txn.attribute_schema(attribute)
    while declared is not None and declared.renamed_to is not None and declared.renamed_to not in seen:
        attribute = declared.renamed_to
        seen.add(attribute)
        declared = txn.attribute_schema(attribute)
    return attribute


def _known(txn: WriteTransaction, attribute: str, field: str) -> AttributeSchema | None:
    declared = txn.attribute_schema(attribute)
    if declared is None and not txn.attribute_in_use(attribute):
        raise NotFoundError(f"{field}: attribute {attribute!r} is neither declared nor written in tenant "
                            f"{txn.tenant!r}", field=field, value=attribute)
    return declared


def _record(
    txn: WriteTransaction, kind: str, attribute: str, detail: dict[str, Any], now: int,
    decided_by: str | None, origin: str | None, family: set[str], taking: ValueConversion | None = None,
    backfill: bool | None = None, keep: Callable[[int], Sequence[ConvertedRow]] | None = None,
) -> ChangeRow:
    """Append the step after every operation recorded so far and re-derive the
    attribute's keys with it (the step refused, and nothing changed, if it cannot);
    ``taking``: a retype's conversion when it is not its value type's, and ``keep`` what
    it made of the operations, stored under the step. On a large attribute (or with
    ``backfill``) the step is checked a batch at a time (``taking`` called then, what it
    made stored batch by batch) and its keys are derived again by a backfill
    (``ledger.backfill``), reads converting until then."""
    txn.lock_lifecycle()
    changes = txn.ledger_changes()
    deferred = backfills.deferred(txn, family, backfill)
    ops = [] if deferred else txn.operations_of_attributes(sorted(family))
    last = txn.last_recorded_of_attributes(sorted(family)) if deferred else None
    at = max([now, *(op.recorded_at for op in ops), *(c.recorded_at for c in changes), *([last] if last else [])])
    row = ChangeRow(1 + max((c.seq for c in changes), default=0), kind, attribute,
                    json.dumps(detail, sort_keys=True), at, txn.last_operation_seq(), decided_by, origin)
    txn.add_change(row)

    def kept() -> None:
        if keep is not None:
            txn.add_converted_values(keep(row.seq))

    if deferred:
        backfills.check(txn, row, family, taking=taking, kept=kept)
        backfills.start(txn, row, family)
        return row
    ident: Ident = ("change", row.seq)
    rederive(txn, attributes=family, strict=ident, ops=ops, taking=taking)
    kept()
    return row


def _stamped(txn: WriteTransaction, schema: AttributeSchema, **changes: Any) -> AttributeSchema:
    stamped = replace(schema, schema_version=txn.bump_schema_version(), **changes)
    txn.put_attribute_schema(stamped)
    return stamped


def rename(
    txn: WriteTransaction, attribute: str, to: str, now: int, decided_by: str | None = None,
    origin: str | None = None, *, backfill: bool | None = None,
) -> ChangeRow:
    """From now on ``attribute`` is called ``to``: its assertions, history included, are
    read under ``to`` (merged with those of ``to``), which takes its type and cardinality;
    the old name stays a name of ``to``."""
    txn.hold_schema()
    attribute, to = current_name(txn, attribute), current_name(txn, to)
    if attribute == to:
        raise ValidationError("to", to, f"is {attribute!r} itself; a rename needs another name")
    declared = _known(txn, attribute, "attribute")
    target = txn.attribute_schema(to)
    shape = declared or AttributeSchema(attribute, None)
    if target is not None and (target.value_type, target.cardinality) != (shape.value_type, shape.cardinality):
        raise ConflictError(
            f"to: {to!r} is declared as {target.value_type.value if target.value_type else 'any type'} "
            f"({target.cardinality.value}); {attribute!r} is "
            f"{shape.value_type.value if shape.value_type else 'any type'} ({shape.cardinality.value})",
            field="to", value=to)
    detail = {"to": to, "from_cardinality": shape.cardinality.value,
              "to_cardinality": None if target is None else target.cardinality.value}
    family = renamed_family(txn.ledger_changes(), [attribute, to])
    row = _record(txn, "rename", attribute, detail, now, decided_by, origin, family, backfill=backfill)
    if target is None:
        _stamped(txn, shape, attribute=to)
    _stamped(txn, shape, renamed_to=to)
    stored = txn.current_attribute_resolution()
    moved: dict[str, str | None] = {name: to for name, meant in stored.items() if meant == attribute}
    moved[attribute] = to
    txn.resolve_attribute_names(moved, row.recorded_at)
    return row


def retype(
    txn: WriteTransaction, attribute: str, value_type: ValueType, pairs: object = None, quarantine: bool = False,
    now: int = 0, decided_by: str | None = None, origin: str | None = None, *, backfill: bool | None = None,
) -> ChangeRow:
    """Declare ``value_type`` for the attribute and convert every value it ever held; a
    value with no conversion is a ``ValidationError`` unless ``quarantine`` sets it aside."""
    txn.hold_schema()
    attribute = current_name(txn, attribute)
    declared = _known(txn, attribute, "attribute")
    if not isinstance(quarantine, bool):
        raise ValidationError("quarantine", quarantine, "must be true or false")
    mapping = check_map(pairs, value_type)
    shape = declared or AttributeSchema(attribute, None)
    detail = {"type": value_type.value, "map": sorted(mapping.items()), "quarantine": quarantine,
              "from_type": shape.value_type.value if shape.value_type else None}
    row = _record(txn, "retype", attribute, detail, now, decided_by, origin,
                  renamed_family(txn.ledger_changes(), [attribute]), backfill=backfill)
    _stamped(txn, shape, value_type=value_type)
    return row


def retype_with(
    txn: WriteTransaction, attribute: str, conversion: ValueConversion, detail: dict[str, Any], now: int,
    keep: Callable[[int], Sequence[ConvertedRow]], decided_by: str | None = None, origin: str | None = None,
    *, backfill: bool | None = None,
) -> ChangeRow:
    """A retype of ``attribute`` whose values ``conversion`` converts (a memory type's
    new version, named in ``detail``; ``keep``: what it made, to store); its value type
    stays as declared."""
    txn.hold_schema()
    attribute = current_name(txn, attribute)
    return _record(txn, "retype", attribute, detail, now, decided_by, origin,
                   renamed_family(txn.ledger_changes(), [attribute]), conversion, backfill, keep)


def reshape(
    txn: WriteTransaction, attribute: str, cardinality: Cardinality, now: int, decided_by: str | None = None,
    origin: str | None = None, *, backfill: bool | None = None,
) -> ChangeRow:
    """Change the cardinality of an attribute that holds data: one -> many makes each
    value a member over its own interval; many -> one is a ``ConflictError`` if two
    members hold at one instant."""
    txn.hold_schema()
    declared = txn.attribute_schema(attribute)
    before = Cardinality.ONE if declared is None else declared.cardinality
    detail = {"to": cardinality.value, "from_cardinality": before.value}
    return _record(txn, "cardinality", attribute, detail, now, decided_by, origin,
                   renamed_family(txn.ledger_changes(), [attribute]), backfill=backfill)


def values_not_of_type(txn: WriteTransaction, attribute: str, value_type: ValueType | None) -> int:
    """How many stored values (of writes and corrections, under every name the attribute
    has had) are not of ``value_type``."""
    if not txn.attribute_in_use(attribute):
        return 0
    family = sorted(renamed_family(txn.ledger_changes(), [attribute]))
    count = 0
    for op in txn.operations_of_attributes(family):
        if op.value is None:
            continue
        try:
            check_value_type(json.loads(op.value), value_type)
        except SgamError:
            count += 1
    return count
