"""Backfilled migration steps: recorded at once, converted a batch of subjects per
transaction, reads converting on the fly until then. Every test runs on both backends
and compares with the same step converted in its own transaction (``backfill=False``)."""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import Memory, ValidationError
from sgam._core.model import Assertion, Backfill

from .conftest import ManualClock, Store

DAYS = [f"2026-01-{day:02d}T00:00:00Z" for day in range(1, 29)]
WHOLE, BIG = "whole", "big"


class Stop(Exception):
    """Raised by a progress callback: the process interrupted between two batches."""


def _fill(memory: Memory, tenant: str, subjects: int, values: list[str]) -> None:
    memory.declare(tenant, "budget", "string")
    memory.declare(tenant, "city", "string")
    memory.add_episode(tenant, "e1", DAYS[0], "budgets")
    memory.add_episode(tenant, "e2", DAYS[0], "more budgets")
    facts: list[dict[str, Any]] = []
    for s in range(subjects):
        for index, value in enumerate(values):
            facts.append({"subject": f"p{s:02d}", "attribute": "budget", "value": value,
                          "valid_from": DAYS[index + s % 3], "source": "e1" if index % 2 == 0 else "e2"})
        facts.append({"subject": f"p{s:02d}", "attribute": "city", "value": "Oslo", "valid_from": DAYS[0],
                      "source": "e1"})
    memory.write_many(tenant, facts)


def _both(memory: Memory, clock: ManualClock, subjects: int = 12,
          values: tuple[str, ...] = ("100", "lots", "250", "5.0"), gap: float = 60) -> datetime:
    """The same ledger in two tenants, the step ``2 * gap`` seconds after the writes;
    returns an instant between them."""
    for tenant in (WHOLE, BIG):
        _fill(memory, tenant, subjects, list(values))
    clock.advance(gap)
    before = clock.now
    clock.advance(gap)
    memory.retype(WHOLE, "budget", "integer", quarantine=True, backfill=False)
    memory.retype(BIG, "budget", "integer", quarantine=True, backfill=True, wait=False)
    return before


def _shape(found: Assertion | list[Assertion] | None) -> Any:
    """What a read answered, without what differs between tenants (ids, the tenant)."""
    if found is None:
        return None
    if isinstance(found, list):
        return [_shape(one) for one in found]
    return replace(found, id=0, tenant="", supersedes=None)


def _reads(memory: Memory, tenant: str, subjects: int, before: datetime, *, set_aside: bool = True,
           listed: bool = True) -> dict[str, Any]:
    """Every read of every key: now, as known before the step, at an earlier valid
    time, its history and its full record; the attribute's query (``listed``: a key whose
    holder exists only once converted is listed once its batch has run); what was set
    aside (listed as the backfill reaches it)."""
    found: dict[str, Any] = {}
    for s in range(subjects):
        subject = f"p{s:02d}"
        found[subject] = [
            _shape(memory.get(tenant, subject, "budget")),
            _shape(memory.get(tenant, subject, "budget", at=DAYS[1])),
            _shape(memory.get(tenant, subject, "budget", known_at=before)),
            _shape(memory.history(tenant, subject, "budget")),
            _shape(memory.history(tenant, subject, "budget", known_at=before)),
            _shape(memory.versions(tenant, subject, "budget")),
        ]
    if listed:
        found["query"] = _shape(list(memory.query(tenant, attribute="budget", limit=1000)))
        found["query_all"] = _shape(list(memory.query(tenant, attribute="budget", all_times=True, limit=1000)))
    if set_aside:
        found["quarantined"] = sorted((q.subject, json.dumps(q.value)) for q in memory.quarantined(tenant, "budget"))
    return found


@pytest.mark.parametrize("values", [
    ("100", "lots", "250", "5.0"),  # a value set aside: each key derived from its operations
    ("100", "250", "5.0"),  # every value converts, none to another's: from the stored versions
    ("5", "250", "5.0"),  # "5" and "5.0" both become 5: the later one corroborates
], ids=["set-aside", "clean", "collision"])
def test_reads_during_a_backfill_answer_what_they_answer_after_it(
    memory: Memory, clock: ManualClock, values: tuple[str, ...],
) -> None:
    before = _both(memory, clock, values=values)
    [pending] = memory.backfills(BIG)
    assert (pending.kind, pending.attribute, pending.subjects_done, pending.subjects_total) == (
        "retype", "budget", 0, 12)
    assert not pending.finished
    assert memory.get(BIG, "p05", "budget").value == 5  # "5.0", converted on the fly
    memory.run_backfill(BIG, batch=5, max_batches=1)
    during = _reads(memory, BIG, 12, before, set_aside=False)
    memory.run_backfill(BIG)
    after = _reads(memory, BIG, 12, before)
    assert during == _reads(memory, BIG, 12, before, set_aside=False)
    assert after == _reads(memory, WHOLE, 12, before)  # set aside and converted as in one transaction
    assert sorted({json.loads(value) for _, value in after["quarantined"]}) == (["lots"] if "lots" in values else [])


@pytest.mark.parametrize("values", [
    ("100", "lots", "250", "5.0"),
    ("100", "250", "5.0"),
    ("5", "250", "5.0"),
], ids=["set-aside", "clean", "collision"])
def test_a_step_at_the_instant_of_the_writes_it_covers_is_read_converted_during_its_backfill(
    memory: Memory, clock: ManualClock, values: tuple[str, ...],
) -> None:
    """A step recorded at the instant of the last operations it covers (the clock has not
    moved, or a writer's clock ran ahead of the step's): the versions recorded at the
    step's instant are of operations before it, so a key the backfill has not reached is
    read converted, before the screening and after it."""
    before = _both(memory, clock, values=values, gap=0)
    unscreened = _reads(memory, BIG, 12, before, set_aside=False, listed=False)
    assert memory.get(BIG, "p05", "budget").value == 5
    memory.run_backfill(BIG, batch=5, max_batches=1)
    screened = _reads(memory, BIG, 12, before, set_aside=False, listed=False)
    memory.run_backfill(BIG)
    after = _reads(memory, BIG, 12, before, set_aside=False, listed=False)
    assert after == _reads(memory, WHOLE, 12, before, set_aside=False, listed=False)
    assert unscreened == after
    assert screened == after


def test_an_interrupted_backfill_resumes_after_the_last_batch_done(memory: Memory, clock: ManualClock) -> None:
    before = _both(memory, clock)
    seen: list[Backfill] = []

    def stop_after_two(status: Backfill) -> None:
        seen.append(status)
        if len(seen) == 2:
            raise Stop  # between two batches: both have committed

    with pytest.raises(Stop):
        memory.run_backfill(BIG, batch=5, progress=stop_after_two)
    [stopped] = memory.backfills(BIG)
    assert (stopped.batches_done, stopped.subjects_done, stopped.after_subject) == (2, 10, "p09")
    assert not stopped.finished
    [done] = memory.run_backfill(BIG, batch=5)
    assert done.finished and (done.batches_done, done.subjects_done, done.subjects_total) == (3, 12, 12)
    assert memory.run_backfill(BIG, batch=5) == [done]  # nothing left: no batch runs again
    assert _reads(memory, BIG, 12, before) == _reads(memory, WHOLE, 12, before)


def test_a_batch_limit_stops_between_batches(memory: Memory, clock: ManualClock) -> None:
    _both(memory, clock)
    [first] = memory.run_backfill(BIG, batch=4, max_batches=1)
    assert (first.batches_done, first.subjects_done, first.after_subject) == (1, 4, "p03")
    [second] = memory.run_backfill(BIG, batch=4, max_batches=0)
    assert second == first
    with pytest.raises(ValidationError) as caught:
        memory.run_backfill(BIG, batch=0)
    assert caught.value.field == "batch"
    assert memory.backfills(BIG) == [first]


def test_erasure_during_a_backfill_leaves_nothing_for_a_later_batch(memory: Memory, clock: ManualClock) -> None:
    before = _both(memory, clock)
    memory.run_backfill(BIG, batch=5, max_batches=1)
    for tenant in (WHOLE, BIG):
        memory.forget_episode(tenant, "e2")  # "lots" and "5.0", converted or not
    assert memory.quarantined(BIG) == []
    memory.run_backfill(BIG, batch=5)
    after = _reads(memory, BIG, 12, before)
    assert after == _reads(memory, WHOLE, 12, before)
    text = json.dumps([after[f"p{s:02d}"] for s in range(12)], default=str)
    assert "lots" not in text and "5.0" not in text and after["quarantined"] == []


def test_a_write_during_a_backfill_is_planned_against_the_converted_key(memory: Memory, clock: ManualClock) -> None:
    before = _both(memory, clock)
    memory.run_backfill(BIG, batch=5, max_batches=1)
    clock.advance(60)
    for tenant in (WHOLE, BIG):
        # p10 is not converted yet: "5.0" holds from DAYS[4] on, as 5 once converted
        result = memory.write(tenant, "p10", "budget", 5, DAYS[5], "e1")
        assert result.effect.value == "corroborated"
        memory.write(tenant, "p11", "budget", 7, DAYS[20], "e1")
    memory.run_backfill(BIG)
    assert _reads(memory, BIG, 12, before) == _reads(memory, WHOLE, 12, before)


def test_a_refused_backfilled_step_changes_nothing(memory: Memory, clock: ManualClock) -> None:
    messages = []
    for tenant, backfill in ((WHOLE, False), (BIG, True)):
        _fill(memory, tenant, 6, ["100", "lots"])
        with pytest.raises(ValidationError) as caught:
            memory.retype(tenant, "budget", "integer", backfill=backfill)
        messages.append((caught.value.field, caught.value.message))
    assert messages[0] == messages[1]  # checked a batch at a time, counted over all of them
    assert "6 value(s) of 'budget' have no conversion to integer" in messages[1][1]
    assert memory.backfills(BIG) == [] and memory.schema_history(BIG) == []
    assert memory.get(BIG, "p00", "budget", at=DAYS[0]).value == "100"


def test_expiry_during_a_backfill_leaves_nothing_for_a_later_batch(memory: Memory, clock: ManualClock) -> None:
    for tenant in (WHOLE, BIG):
        _fill(memory, tenant, 8, ["100", "250"])
        memory.write(tenant, "p07", "budget", "999", DAYS[20], "e1", expires_at=clock.now + timedelta(hours=1))
    clock.advance(60)
    before = clock.now
    memory.retype(WHOLE, "budget", "integer", backfill=False)
    memory.retype(BIG, "budget", "integer", backfill=True, wait=False)
    memory.run_backfill(BIG, batch=3, max_batches=1)
    clock.advance(2 * 3600)  # p07's "999" is past its deadline: the next call erases it
    assert memory.get(BIG, "p07", "budget", at=DAYS[21]).value == 250
    memory.run_backfill(BIG, batch=3)
    after = _reads(memory, BIG, 8, before)
    assert after == _reads(memory, WHOLE, 8, before)
    assert "999" not in json.dumps([after[f"p{s:02d}"] for s in range(8)], default=str)


LONG = "x" * 1200
"""Too long for the by-value index: the screening finds it by its own index."""
SCREENED = {  # subject: its values, oldest first; whether a read must read every value of its key
    "p00": (["100", "250"], False), "p01": (["100", "lots"], True), "p02": (["100", "250", "300"], False),
    "p03": (["5", "5.0"], True), "p04": (["100", LONG, "250"], True), "p05": (["7", "8"], False),
    "p06": (["100", "250"], False), "p07": (["lots", "9"], True),
}


def _fill_screened(memory: Memory, tenant: str) -> None:
    memory.declare(tenant, "budget", "string")
    memory.add_episode(tenant, "e1", DAYS[0], "budgets")
    memory.write_many(tenant, [{"subject": subject, "attribute": "budget", "value": value, "valid_from": DAYS[day],
                                "source": "e1"}
                               for subject, (values, _) in SCREENED.items() for day, value in enumerate(values)])


def _holdouts(memory: Memory, tenant: str) -> dict[str, bool | None]:
    [backfill] = memory.backfills(tenant)
    with memory.backend.read(tenant) as reader:
        return {subject: reader.holdout(backfill.step, subject) for subject in SCREENED}


def test_the_first_batch_screens_the_keys_a_read_must_read_whole(memory: Memory, clock: ManualClock) -> None:
    """A value with no conversion, one that collides, one too long for the by-value index:
    their subjects are held out; a read of any other key not converted yet converts the
    one version it answers with, and every read equals the read after the backfill."""
    for tenant in (WHOLE, BIG):
        _fill_screened(memory, tenant)
    clock.advance(60)
    before = clock.now
    clock.advance(60)
    memory.retype(WHOLE, "budget", "integer", quarantine=True, backfill=False)
    memory.retype(BIG, "budget", "integer", quarantine=True, backfill=True, wait=False)
    assert set(_holdouts(memory, BIG).values()) == {None}  # not screened yet: every key is read whole
    assert memory.get(BIG, "p02", "budget").value == 300
    memory.run_backfill(BIG, batch=2, max_batches=1)
    assert _holdouts(memory, BIG) == {subject: held for subject, (_, held) in SCREENED.items()}
    during = _reads(memory, BIG, len(SCREENED), before, set_aside=False)
    assert during == _reads(memory, WHOLE, len(SCREENED), before, set_aside=False)
    assert during["p02"][0].value == 300 and during["p04"][0].value == 250

    def each_day(tenant: str) -> list[Any]:
        return [_shape(memory.get(tenant, subject, "budget", at=DAYS[day])) for subject in SCREENED for day in range(4)]

    assert each_day(BIG) == each_day(WHOLE)  # p04's 100 runs on to 250 where its long value was set aside
    clock.advance(60)
    for tenant in (WHOLE, BIG):
        memory.write(tenant, "p05", "budget", 9, DAYS[5], "e1")  # screened, then derived by a write
        memory.forget_subject(tenant, "p07")
    assert _holdouts(memory, BIG)["p07"] is False  # an erasure takes the subject out
    memory.run_backfill(BIG)
    assert _holdouts(memory, BIG) == dict.fromkeys(SCREENED, False)  # finished: no holdout is kept
    assert _reads(memory, BIG, len(SCREENED), before) == _reads(memory, WHOLE, len(SCREENED), before)


def test_two_processes_running_one_backfill_take_its_batches_in_turn(
    store: Store, memory: Memory, clock: ManualClock,
) -> None:
    """Two runners of one backfill (two servers, a server and ``sgam schema backfill``),
    each with a connection of its own: every batch runs once, and the result is the
    step taken in one transaction."""
    before = _both(memory, clock)
    done: list[tuple[str, int]] = []
    failures: list[BaseException] = []

    def runner(name: str) -> None:
        try:
            with Memory(store.url, clock=clock) as own:
                own.run_backfill(BIG, batch=1, progress=lambda status: done.append((name, status.batches_done)))
        except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=runner, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    [status] = memory.backfills(BIG)
    assert status.finished and status.batches_done == 12
    advanced = sorted(count for _, count in done)
    assert advanced[:12] == list(range(1, 13)) and set(advanced[12:]) <= {12}  # a late runner finds it finished
    assert _reads(memory, BIG, 12, before) == _reads(memory, WHOLE, 12, before)


def test_an_erasure_moves_a_backfill_cursor_off_the_erased_subject(memory: Memory, clock: ManualClock) -> None:
    """The cursor is the last subject done: erasing that subject leaves the cursor on the
    one before it, so the name is gone and the backfill goes on after the same subjects."""
    marker = "zed-cursor-marker"
    for tenant in (WHOLE, BIG):
        memory.declare(tenant, "budget", "string")
        memory.add_episode(tenant, "e1", DAYS[0], "budgets")
        memory.write_many(tenant, [{"subject": subject, "attribute": "budget", "value": "100", "valid_from": DAYS[0],
                                    "source": "e1"} for subject in ("ann", "bob", marker, "zoe")])
    clock.advance(60)
    memory.retype(WHOLE, "budget", "integer", backfill=False)
    memory.retype(BIG, "budget", "integer", backfill=True, wait=False)
    [status] = memory.run_backfill(BIG, batch=3, max_batches=1)
    assert status.after_subject == marker
    for tenant in (WHOLE, BIG):
        memory.forget_subject(tenant, marker)
    [status] = memory.backfills(BIG)
    assert (status.after_subject, status.subjects_done) == ("bob", 3)
    assert not [place for place in memory.residue(BIG, marker).places if "backfill" in place]
    [done] = memory.run_backfill(BIG, batch=3)
    assert done.finished and done.batches_done == 2
    assert [_shape(memory.get(BIG, s, "budget")) for s in ("ann", "bob", "zoe")] == [
        _shape(memory.get(WHOLE, s, "budget")) for s in ("ann", "bob", "zoe")]


def test_a_backfilled_rename_reads_under_the_new_name(memory: Memory, clock: ManualClock) -> None:
    for tenant in (WHOLE, BIG):
        _fill(memory, tenant, 6, ["100", "250"])
    clock.advance(60)
    memory.rename_attribute(WHOLE, "budget", "spend", backfill=False)
    memory.rename_attribute(BIG, "budget", "spend", backfill=True, wait=False)
    memory.run_backfill(BIG, batch=2, max_batches=1)

    def reads(tenant: str) -> list[Any]:
        return [[_shape(memory.history(tenant, f"p{s:02d}", name)) for name in ("spend", "budget")]
                for s in range(6)]

    during = reads(BIG)
    assert during == reads(WHOLE)
    memory.run_backfill(BIG)
    assert reads(BIG) == during


SUBJECTS = 4
EXAMPLES = itertools.count()
value_text = st.sampled_from(["1", "2", "2.0", "x", "3", "y"])
histories = st.lists(st.tuples(st.integers(0, SUBJECTS - 1), st.integers(0, 6), value_text,
                               st.sampled_from(["write", "retract"])), min_size=1, max_size=14)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories, batch=st.integers(1, SUBJECTS), stop=st.integers(0, SUBJECTS))
def test_dual_reads_equal_the_converted_reads_for_every_key(
    memory: Memory, clock: ManualClock, history: list[tuple[int, int, str, str]], batch: int, stop: int,
) -> None:
    """Any history, any batch size, interrupted after any number of batches: every read
    of every key during the backfill equals the read after it, and the read of the same
    step converted in one transaction."""
    run = f"h{next(EXAMPLES)}"  # a tenant pair of its own, even when an example runs again
    tenants = (f"{run}w", f"{run}b")
    for tenant in tenants:
        memory.declare(tenant, "budget", "string")
        memory.add_episode(tenant, "e1", DAYS[0], "budgets")
        for subject, day, value, kind in history:
            try:
                if kind == "write":
                    memory.write(tenant, f"p{subject:02d}", "budget", value, DAYS[day], "e1")
                else:
                    memory.retract(tenant, f"p{subject:02d}", "budget", DAYS[day], "e1")
            except Exception:  # noqa: BLE001 - a refused operation is part of the history
                pass
    clock.advance(60)
    before = clock.now
    clock.advance(60)
    memory.retype(tenants[0], "budget", "integer", quarantine=True, backfill=False)
    memory.retype(tenants[1], "budget", "integer", quarantine=True, backfill=True, wait=False)
    memory.run_backfill(tenants[1], batch=batch, max_batches=stop)
    during = _reads(memory, tenants[1], SUBJECTS, before, set_aside=False, listed=False)
    memory.run_backfill(tenants[1], batch=batch)
    assert during == _reads(memory, tenants[1], SUBJECTS, before, set_aside=False, listed=False)
    assert _reads(memory, tenants[1], SUBJECTS, before) == _reads(memory, tenants[0], SUBJECTS, before)


def test_a_retraction_of_a_value_set_aside_closes_nothing_on_the_fly(memory: Memory, clock: ManualClock) -> None:
    """"x" is retracted at day 6 and "1" written from day 3 after it: in the old shape "1"
    ends at day 6; with "x" set aside the retraction closes nothing and "1" stays."""
    memory.declare(BIG, "budget", "string")
    memory.add_episode(BIG, "e1", DAYS[0], "budgets")
    memory.write(BIG, "p03", "budget", "x", DAYS[1], "e1")
    memory.retract(BIG, "p03", "budget", DAYS[5], "e1")
    memory.write(BIG, "p03", "budget", "1", DAYS[2], "e1")
    clock.advance(60)
    assert memory.get(BIG, "p03", "budget") is None
    memory.retype(BIG, "budget", "integer", quarantine=True, backfill=True, wait=False)
    during = (_shape(memory.get(BIG, "p03", "budget")), _shape(memory.history(BIG, "p03", "budget")))
    assert during[0] is not None and during[0].value == 1 and during[0].valid_to is None
    memory.run_backfill(BIG)
    assert (_shape(memory.get(BIG, "p03", "budget")), _shape(memory.history(BIG, "p03", "budget"))) == during
