"""Property: a one-valued relation's timeline, planned with values compared by the subject
they name, is the timeline of the same writes spelled with each subject's own id: an
alias never makes a conflict, a supersession or a corroboration that the id would not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sgam._core.errors import ConflictError, NotFoundError
from sgam._core.rules import KeyTimeline, Operation, OpKind
from sgam._core.values import canonical_json
from sgam.ledger.relations import same_subject

NAMES = {"omar": "omar", "ännä": "omar", "o. k.": "omar", "lea": "lea", "l": "lea", "bo": "bo"}
"""Each name and the subject it means (an alias, or the subject itself)."""


def _op(seq: int, kind: OpKind, start: int, name: str | None) -> Operation:
    return Operation(seq, "ann", "manager", kind, start, None if name is None else canonical_json(name), "e1",
                     seq, "fact", 1.0, 1)


def _outcome(timeline: KeyTimeline, op: Operation) -> str:
    try:
        return timeline.apply(op).effect.value
    except (ConflictError, NotFoundError) as exc:
        return type(exc).__name__


steps = st.lists(st.tuples(st.sampled_from([OpKind.WRITE, OpKind.WRITE, OpKind.RETRACT]),
                           st.integers(0, 6), st.sampled_from(sorted(NAMES))), max_size=12)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_aliases_plan_as_the_subject_ids_they_mean(writes: list[tuple[OpKind, int, str]]) -> None:
    by_name = KeyTimeline(same=same_subject(NAMES.__getitem__))
    by_id = KeyTimeline()
    for seq, (kind, start, name) in enumerate(writes, start=1):
        value = None if kind is OpKind.RETRACT else name
        meant = None if kind is OpKind.RETRACT else NAMES[name]
        assert _outcome(by_name, _op(seq, kind, start, value)) == _outcome(by_id, _op(seq, kind, start, meant))

    def shape(timeline: KeyTimeline) -> list[tuple[int, int | None, str]]:
        return [(v.valid_from, v.valid_to, NAMES[str(v.value).strip('"')]) for v in timeline.current]

    assert shape(by_name) == shape(by_id)
