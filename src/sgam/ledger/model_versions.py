"""New versions of a typed memory type (a Pydantic model) as recorded steps.

Registering a model whose JSON Schema differs from the stored one, for a type with stored
values, retypes each attribute holding them (``_migrations.retype_with``): from the
step's transaction time on, every value of the type, history included, reads as the
caller's conversion function made it, and a value the function fails on, or turns into
something the new model refuses, is set aside (quarantine) with the reason. Reads with
an earlier ``known_at`` answer the values as they were. The function is Python the
database does not have, so what it made of each operation it changed is stored
(``converted_values``, which dies with the operation): re-deriving the attribute later
(an erasure, a later step) reads that instead of calling the function.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .._core.errors import SgamError, ValidationError
from .._core.purpose import split_attribute
from .._core.rules import Operation
from .._core.schema import MemoryTypeSchema, check_memory_value
from .._core.values import canonical_json
from ..store import ConvertedRow, WriteTransaction
from .migrations import current_name, retype_with

Conversion = Callable[[Any], Any]
"""A stored value of the old version (its JSON as a dict, or an instance of the previous
model when one is given) -> the value of the new version (a model instance or a dict)."""

MAX_REASON = 500
"""Characters of a reason kept (a Pydantic error quotes the whole input)."""
MAX_SHOWN = 80


@dataclass
class ModelConversion:
    """The conversion of one attribute's values of the type while the step is taken:
    each distinct value converted once; what changed is kept for ``converted_values``."""

    schema: MemoryTypeSchema
    model: type[BaseModel]
    function: Conversion | None
    previous: type[BaseModel] | None = None
    outcomes: dict[int, tuple[str | None, str | None]] = field(default_factory=dict)
    """(new value, reason set aside) by operation, for the operations whose value changed
    since ``taken`` last took them."""
    _by_value: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    _failed: dict[str, str] = field(default_factory=dict)
    """Without a function, each value the model refuses and why, kept for ``refused`` when
    ``taken`` empties the rest (with one, nothing is refused: a backfill keeps only a batch)."""

    def reaches(self, op: Operation) -> bool:
        return op.memory_type == self.schema.name

    def __call__(self, op: Operation, current: str) -> str | None:
        if current not in self._by_value:
            self._by_value[current] = self._convert(current)
        value, reason = self._by_value[current]
        if value is None and reason is not None and self.function is None:
            self._failed[current] = reason
        if value == current:
            self.outcomes.pop(op.seq, None)
        else:
            self.outcomes[op.seq] = (value, reason)
        return value

    def _convert(self, current: str) -> tuple[str | None, str | None]:
        new: Any = json.loads(current)
        if self.function is not None:
            given = new
            if self.previous is not None:
                try:
                    given = self.previous.model_validate(new)
                except Exception as exc:  # noqa: BLE001 - a value the previous model refuses is set aside
                    return None, _reason(f"does not validate against the previous model {self.previous.__name__}: "
                                         f"{exc}")
            try:
                result = self.function(given)
            except Exception as exc:  # noqa: BLE001 - the caller's code: what it fails on is set aside
                return None, _reason(f"the conversion function raised {type(exc).__name__}: {exc}")
            new = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        try:
            text = canonical_json(new)
            check_memory_value(new, self.schema, self.model, text)
        except SgamError as exc:
            rule = f"{exc.field}: {exc.rule}" if isinstance(exc, ValidationError) else exc.message
            return None, _reason(f"does not validate against version {self.schema.schema_version} of "
                                 f"{self.schema.name!r}: {rule}")
        return text, None

    def refused(self, attribute: str, unconverted: Sequence[str]) -> SgamError:
        shown = "; ".join(f"{_short(value)}: {self._failed[value]}" for value in sorted(set(unconverted))[:3])
        return ValidationError(
            "model", self.schema.name,
            f"{len(unconverted)} stored value(s) of memory type {self.schema.name!r} in {attribute!r} do not "
            f"validate against the new model (e.g. {shown}): give a conversion function (convert=), and what it "
            "cannot convert is set aside")

    def taken(self, step: int) -> list[ConvertedRow]:
        """What the function made since the last call, as rows of ``step``; a backfilled
        step takes them a batch at a time, so memory stays that of one batch."""
        rows = [ConvertedRow(step, seq, value, reason) for seq, (value, reason) in sorted(self.outcomes.items())]
        self.outcomes.clear()
        self._by_value.clear()
        return rows


def register(
    txn: WriteTransaction, name: str, model: type[BaseModel], function: Conversion | None,
    previous: type[BaseModel] | None, now: int, decided_by: str | None = None, origin: str | None = None,
    *, backfill: bool | None = None,
) -> MemoryTypeSchema:
    """Store ``model`` as the type's current version. When its JSON Schema is new (or a
    ``function`` is given) and the type has stored values, convert them as a retype
    step of each attribute holding them; without a ``function``, a value the model
    refuses is a ``ValidationError`` and nothing changes. On a large attribute (or with
    ``backfill``) the function is called on every value a batch of subjects at a time
    and the stored versions are derived again by a backfill, as any retype's."""
    before = txn.memory_type(name)
    schema = MemoryTypeSchema(name, model.model_json_schema(), txn.bump_schema_version())
    if function is None and before is not None and before.json_schema == schema.json_schema:
        txn.put_memory_type(schema)
        return schema
    for attribute in holding(txn, name):
        conversion = ModelConversion(schema, model, function, previous)
        detail = {"memory_type": name, "version": schema.schema_version, "convert": function is not None,
                  "from_version": None if before is None else before.schema_version,
                  "quarantine": function is not None}
        retype_with(txn, attribute, conversion, detail, now, conversion.taken, decided_by, origin, backfill=backfill)
    txn.put_memory_type(schema)
    return schema


def holding(txn: WriteTransaction, name: str) -> list[str]:
    """The attributes, by their current names, holding operations of memory type ``name``."""
    return sorted({current_name(txn, split_attribute(stored)[0]) for stored in txn.attributes_of_memory_type(name)})


def _reason(text: str) -> str:
    return text if len(text) <= MAX_REASON else f"{text[:MAX_REASON - 1]}…"


def _short(value: str) -> str:
    return value if len(value) <= MAX_SHOWN else f"{value[:MAX_SHOWN - 1]}…"
