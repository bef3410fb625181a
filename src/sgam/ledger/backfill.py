"""A migration step's backfill: a step on a large attribute is recorded at once, and its
stored versions are derived again afterwards, a batch of subjects per transaction.

Holding the attribute's whole log and versions in one transaction grows with the
attribute (324 MB of RSS at 100k operations), blocks writers for as long, and an
interruption loses everything. So a step whose attribute has more than
``BACKFILL_ABOVE`` subjects records itself (and refuses, before anything changes, what
it would refuse: its check reads a batch at a time too), and ``run_batch`` then derives
the next ``batch`` subjects (their alias families whole, since a merge joins their
logs) with the same derivation a whole step uses, storing each batch's versions and
what it set aside in a transaction of its own (the first batch also screens the
attribute's values, so that reads convert most keys from one version: ``screening``).
The row of ``backfills`` remembers the last subject done, so a batch interrupted before
its commit is redone whole and a finished one is never redone. Until the backfill is
finished, reads of a later subject answer from that derivation computed on the fly
(``dual_read``), writes derive the key first (``convert_key``), and an erasure derives
what remains as always: a batch derives from the log as it stands under the subjects'
locks, so it cannot bring back what an erasure removed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import lru_cache

from .._core.conversions import TypeConversion, ValueConversion
from .._core.errors import ValidationError
from .._core.purpose import split_attribute
from .._core.schema import Cardinality
from ..store import BackfillRow, ChangeRow, WriteTransaction
from .derivation import Ident, derive_subjects, memory_type_of, rederive
from .families import alias_family
from .screening import screen

BACKFILL_ABOVE = 2_000
"""Subjects of an attribute above which a step is backfilled rather than converted in
the transaction that records it."""
BATCH = 500
"""Subjects per batch: at ten versions a subject, a batch holds about 5,000 versions."""


def family_of(row: BackfillRow) -> frozenset[str]:
    """The attributes a backfill derives again, parsed once per row text: a dual read asks
    this of every unfinished backfill on every read scope."""
    return _family(row.attributes)


@lru_cache(maxsize=64)
def _family(attributes: str) -> frozenset[str]:
    return frozenset(json.loads(attributes))


def deferred(txn: WriteTransaction, family: Collection[str], backfill: bool | None) -> bool:
    """Whether a step on ``family`` is backfilled: as asked, or by its size."""
    if backfill is not None:
        return backfill
    return txn.count_family_subjects(sorted(family)) > BACKFILL_ABOVE


def start(txn: WriteTransaction, change: ChangeRow, family: Collection[str]) -> BackfillRow:
    """Record the backfill of ``change`` (already added), none of it done."""
    row = BackfillRow(change.seq, json.dumps(sorted(family)), None, 0, txn.count_family_subjects(sorted(family)), 0,
                      change.recorded_at, None, _lone_conversion(txn, change, family))
    txn.add_backfill(row)
    return row


def _lone_conversion(txn: WriteTransaction, change: ChangeRow, family: Collection[str]) -> str | None:
    """A retype's type and map when its keys may be converted from their stored versions
    alone (``dual_read``): a one-valued attribute never renamed, retyped or reshaped
    before, in a tenant without aliases; the log's derivation is needed otherwise."""
    declared = txn.attribute_schema(change.attribute)
    if change.kind != "retype" or memory_type_of(change) is not None or set(family) != {change.attribute}:
        return None  # a memory type's conversion is the log's: what its function made of each operation
    if txn.alias_steps():
        return None
    if declared is not None and declared.cardinality is Cardinality.MANY:
        return None
    if any(c.seq != change.seq and change.attribute in (c.attribute, json.loads(c.detail).get("to"))
           for c in txn.ledger_changes()):
        return None
    detail = json.loads(change.detail)
    return json.dumps({"type": detail["type"], "map": detail["map"]})


def check(txn: WriteTransaction, change: ChangeRow, family: Collection[str], batch: int = BATCH,
          taking: ValueConversion | None = None, kept: Callable[[], None] | None = None) -> None:
    """Refuse ``change`` (added in this transaction) as its whole derivation would: a
    merge or a change to one value per instant that would put two values at one start,
    values of a retype with no conversion and no ``quarantine`` (counted over every
    batch). Reads a batch of subjects at a time; stores nothing but what ``kept`` stores
    after each batch: ``taking``, a memory type's conversion function, is called on every
    value here, once, and what it made is recorded batch by batch (``model_versions``)."""
    detail = json.loads(change.detail)
    refused: dict[int, str] | None = {} if change.kind == "retype" and not detail.get("quarantine") else None
    if taking is None:
        if change.kind == "retype" and refused is None:
            return  # every value converts or is set aside: nothing to refuse
        if change.kind == "rename" and not txn.attribute_in_use(str(detail["to"])):
            return  # nothing under the new name to merge with
        if change.kind == "cardinality" and detail["to"] == "many":
            return  # each value its own member: nothing to refuse
    ident: Ident = ("change", change.seq)
    after: str | None = None
    steps = txn.alias_steps()
    while subjects := txn.family_subjects(sorted(family), after, batch):
        derive_subjects(txn, txn.attribute_schema, alias_family(steps, subjects), family, strict=ident,
                        refused=refused, taking=taking)
        if kept is not None:
            kept()
        after = subjects[-1]
    if refused:
        conversion = taking or TypeConversion.of(detail)
        raise conversion.refused(change.attribute, list(refused.values()))


def run_batch(txn: WriteTransaction, seq: int, batch: int, now: int, *, screening: bool = True) -> BackfillRow:
    """Derive and store the next ``batch`` subjects of backfill ``seq``; finished when
    none is left after them. ``screening``: screen the values first if not done yet
    (reads between batches need it; a backfill run whole in one transaction does not)."""
    row = txn.claim_backfill(seq)
    if row is None:
        raise ValidationError("step", seq, "has no backfill")
    if row.finished_at is not None:
        return row
    if screening and row.screened_at is None:
        row = screen(txn, row, now)
    family = family_of(row)
    subjects = txn.family_subjects(sorted(family), row.after_subject, batch)
    if subjects:
        names = alias_family(txn.alias_steps(), subjects)
        txn.lock_subjects(sorted(names))
        rederive(txn, subjects=names, attributes=family)
        row = replace(row, after_subject=subjects[-1], subjects_done=row.subjects_done + len(subjects),
                      batches_done=row.batches_done + 1)
    if len(subjects) < batch:
        row = replace(row, subjects_total=row.subjects_done, finished_at=now)
    else:
        row = replace(row, subjects_total=max(row.subjects_total, row.subjects_done))
    txn.advance_backfill(row)
    return row


def finish(txn: WriteTransaction, now: int, batch: int = BATCH) -> None:
    """Every unfinished backfill run to its end inside ``txn`` (a plan, rolled back
    whole): batch by batch, so memory stays that of one batch."""
    for row in txn.unfinished_backfills():
        while run_batch(txn, row.seq, batch, now, screening=False).finished_at is None:
            pass


def forget_cursors(txn: WriteTransaction, names: Collection[str]) -> None:
    """A backfill's cursor is the last subject it did: one naming an erased subject moves
    back to the subject before it, which selects the same subjects after it (the erased
    one has no key left), and the name is gone with the rest."""
    for row in txn.backfills():
        if row.after_subject is not None and row.after_subject in names:
            before = txn.family_subject_before(sorted(family_of(row)), row.after_subject)
            txn.advance_backfill(replace(row, after_subject=before))


def behind(rows: Sequence[BackfillRow], subject: str, attribute: str) -> bool:
    """Whether the key's stored versions may not be what they will be: an unfinished
    backfill of its attribute has not reached its subject. A read at any ``known_at``
    counts (one before the step must still see the old versions end at it)."""
    base = split_attribute(attribute)[0]
    return any((row.after_subject is None or subject > row.after_subject) and base in family_of(row)
               for row in rows)


def convert_key(txn: WriteTransaction, subject: str, attribute: str) -> None:
    """Before a write plans against the key's stored versions: derive them first when an
    unfinished backfill has not reached it (its batch will find them done)."""
    rows = txn.unfinished_backfills()
    if not rows or not behind(rows, subject, attribute):
        return
    base = split_attribute(attribute)[0]
    family = {name for row in rows if base in family_of(row) for name in family_of(row)}
    rederive(txn, subjects=alias_family(txn.alias_steps(), [subject]), attributes=family)
