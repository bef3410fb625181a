"""A backfill's screening: the subjects whose keys a read may not convert from the one
version it answers with.

A read of a key a lone retype's backfill has not reached converts it on the fly
(``dual_read``). To convert the one version it answers with, it must know the key's
other values do not change that answer (``Screen``): the first batch of the backfill
reads the attribute's values once, in the by-value index's order (a value's verdict
is taken once for all the subjects holding it), and records the subjects holding a
value that does not pass, and those holding a value too long for that index. Until
then, and for those subjects, a read reads every value of the key as before.

What a write, a merge or an erasure does afterwards cannot make a screened key wrong:
each derives the key it touches, whose stored versions are then answered as stored
(recorded at or after the step), and an erasure only takes values away. Subjects the
backfill has already done are left out; they are read as stored.
"""

from __future__ import annotations

import json
from dataclasses import replace

from .._core.conversions import Screen
from .._core.schema import ValueType
from ..store import BackfillRow, WriteTransaction

PAGE = 10_000
"""Index entries read per statement: memory stays that of one page."""


def screen(txn: WriteTransaction, row: BackfillRow, now: int) -> BackfillRow:
    """Screen the values of ``row``'s lone retype and record its holdouts; ``row`` as
    screened. A backfill of anything else is marked screened with no holdouts: its reads
    never convert one version (``dual_read`` asks only lone retypes)."""
    held: set[str] = set()
    if row.conversion is not None:
        step = json.loads(row.conversion)
        rule = Screen.of(ValueType(step["type"]), {str(old): str(new) for old, new in step["map"]})
        [attribute] = json.loads(row.attributes)
        held.update(txn.long_value_subjects(attribute))
        after: tuple[str, str, str] | None = None
        last, passed = None, False
        while page := txn.attribute_values(attribute, after, PAGE):
            for _, value, subject in page:
                if value != last:
                    last, passed = value, rule.passes(value)
                if not passed:
                    held.add(subject)
            after = page[-1]
        if row.after_subject is not None:
            held = {subject for subject in held if subject > row.after_subject}
    txn.add_holdouts(row.seq, sorted(held), now)
    return replace(row, screened_at=now)
