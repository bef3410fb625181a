"""A schema step taken while writers and readers run: a retype (string -> integer, values
with no conversion set aside) and a rename, each with a backfill and in one transaction,
under eight threads that write and read the attribute, each through its own ``Memory``.

The step serialises with the writes of its attribute, so afterwards every acknowledged
write is in the ledger as the step made it: each key's history equals the values its
writer acknowledged, in order, computed here independently (``int`` of the text written
before a retype, the name given before a rename); no acknowledged write keeps the old type;
no backfill stops; no read that starts after the step returned answers a value the step
set aside or a value of the old type. The step's clock runs behind the writers', so the
step takes the instant of the last write it covers, and reads during a retype's backfill
meet a key whose version shares the step's instant.

``SGAM_STEP_RACE_SECONDS`` (default 0.4) is how long the threads run before the step and
after it; raise it for a longer soak. ``SGAM_STEP_RACE_WRITERS`` and
``SGAM_STEP_RACE_READERS`` (default 4 each) set how many threads write and read. Each case
prints its figures (run with ``-s`` to see them).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sgam import BusyError, Memory, ValidationError

SECONDS = float(os.environ.get("SGAM_STEP_RACE_SECONDS", "0.4"))
WRITERS = int(os.environ.get("SGAM_STEP_RACE_WRITERS", "4"))
READERS = int(os.environ.get("SGAM_STEP_RACE_READERS", "4"))
SUBJECTS_PER_WRITER = 4
HELD_OUT = 12
"""Subjects whose last value has no conversion to integer: a retype sets it aside."""
STEP_CLOCK_LAG = timedelta(seconds=1)
"""The step's clock runs behind the writers' (another process's clock may): the step
then takes the instant of the last write it covers, which a version of a writer's key
shares until the key is written again or the backfill reaches it."""
T0 = datetime(2026, 1, 1, tzinfo=UTC)
SOURCE = "e1"


@dataclass
class Race:
    """What the threads saw; every list must end empty but ``acknowledged``."""

    acknowledged: dict[str, list[tuple[datetime, str | int]]] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    set_aside_reads: list[str] = field(default_factory=list)
    old_type_reads: list[str] = field(default_factory=list)
    stopped_backfills: list[str] = field(default_factory=list)
    busy: int = 0
    reads: int = 0
    reads_after: int = 0
    ready: threading.Barrier = field(default_factory=lambda: threading.Barrier(WRITERS + READERS + 1))
    step_returned: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _prepare(url: str, tenant: str) -> list[str]:
    """The attribute declared a string, a few values for each writer's subjects, and the
    held-out subjects: a convertible value, then one with no conversion."""
    with Memory(url) as memory:
        memory.add_episode(tenant, SOURCE, T0, "levels")
        memory.declare(tenant, "level", "string")
        held = [f"h{n:02d}" for n in range(HELD_OUT)]
        memory.write_many(tenant, [
            *({"subject": s, "attribute": "level", "value": "5", "valid_from": T0, "source": SOURCE} for s in held),
            *({"subject": s, "attribute": "level", "value": "n/a", "valid_from": T0 + timedelta(days=1),
               "source": SOURCE} for s in held),
        ])
    return held


def _writer(url: str, tenant: str, number: int, race: Race, typed: bool) -> None:
    """Writes its own subjects at later and later valid times; a string until the schema
    says integer (``typed``: a retype is racing), then an integer."""
    subjects = [f"w{number}s{n}" for n in range(SUBJECTS_PER_WRITER)]
    as_integer = False
    count = 0
    with Memory(url) as memory:
        race.ready.wait(120)
        while not race.stop.is_set():
            count += 1
            subject = subjects[count % len(subjects)]
            valid_from = T0 + timedelta(days=10, minutes=count)
            value: str | int = count if as_integer else str(count)
            try:
                memory.write(tenant, subject, "level", value, valid_from, SOURCE)
            except ValidationError as exc:
                if typed and not as_integer and "declared type integer" in str(exc):
                    as_integer = True  # the step committed: write the same value as an integer
                    try:
                        memory.write(tenant, subject, "level", count, valid_from, SOURCE)
                    except BusyError:
                        with race.lock:
                            race.busy += 1
                        continue
                    value = count
                else:
                    with race.lock:
                        race.refused.append(f"{subject} {value!r}: {exc}")
                    continue
            except BusyError:
                with race.lock:
                    race.busy += 1
                continue
            except Exception as exc:  # noqa: BLE001 - any other refusal is what this test counts
                with race.lock:
                    race.refused.append(f"{subject} {value!r}: {type(exc).__name__}: {exc}")
                continue
            with race.lock:
                race.acknowledged.setdefault(subject, []).append((valid_from, value))


def _reader(url: str, tenant: str, number: int, race: Race, held: list[str], attribute: str, typed: bool) -> None:
    """Reads the held-out subjects and the writers' subjects; after the step returned, a
    set-aside value or (after a retype) a string is a wrong read."""
    subjects = held + [f"w{w}s{n}" for w in range(WRITERS) for n in range(SUBJECTS_PER_WRITER)]
    count = number
    with Memory(url) as memory:
        race.ready.wait(120)
        while not race.stop.is_set():
            count += 1
            subject = subjects[count % len(subjects)]
            after = race.step_returned.is_set()
            try:
                found = memory.get(tenant, subject, attribute if after else "level")
            except BusyError:
                continue
            with race.lock:
                race.reads += 1
                race.reads_after += after
            if not after or found is None:
                continue
            if typed and found.value == "n/a":
                with race.lock:
                    race.set_aside_reads.append(f"{subject}: {found.value!r}")
            elif typed and not isinstance(found.value, int):
                with race.lock:
                    race.old_type_reads.append(f"{subject}: {found.value!r}")


def _run(url: str, tenant: str, kind: str, backfill: bool) -> Race:
    held = _prepare(url, tenant)
    race = Race()
    typed = kind == "retype"
    attribute = "level" if typed else "tier"
    threads = [threading.Thread(target=_writer, args=(url, tenant, n, race, typed)) for n in range(WRITERS)]
    threads += [threading.Thread(target=_reader, args=(url, tenant, n, race, held, attribute, typed))
                for n in range(READERS)]
    for thread in threads:
        thread.start()
    try:
        with Memory(url, clock=lambda: datetime.now(UTC) - STEP_CLOCK_LAG) as memory:
            race.ready.wait(120)  # every thread has its store open
            time.sleep(SECONDS)
            if typed:
                memory.retype(tenant, "level", "integer", quarantine=True, backfill=backfill, wait=False)
            else:
                memory.rename_attribute(tenant, "level", "tier", backfill=backfill, wait=False)
            race.step_returned.set()
            ends = time.monotonic() + SECONDS
            while any(b.finished_at is None for b in memory.backfills(tenant)):
                try:
                    memory.run_backfill(tenant, batch=3, max_batches=1)
                except BusyError:
                    continue
                except Exception as exc:  # noqa: BLE001 - a stopped backfill is what this test counts
                    race.stopped_backfills.append(f"{type(exc).__name__}: {exc}")
                    break
            time.sleep(max(0.0, ends - time.monotonic()))
            patience = time.monotonic() + 60
            while race.reads_after < READERS and time.monotonic() < patience:  # a loaded machine is slow
                time.sleep(0.05)
    finally:
        race.stop.set()
        for thread in threads:
            thread.join()
    return race


def _expected(race: Race, typed: bool) -> dict[str, list[Any]]:
    """Each writer subject's history as computed from what its writer acknowledged."""
    return {subject: [int(value) if typed else value for _, value in sorted(writes)]
            for subject, writes in race.acknowledged.items()}


@pytest.mark.parametrize(("kind", "backfill"), [("retype", True), ("retype", False), ("rename", True),
                                                ("rename", False)])
def test_a_schema_step_serialises_with_the_writes_and_reads_of_its_attribute(
    store_url: str, kind: str, backfill: bool,
) -> None:
    tenant = f"{kind}-{'backfill' if backfill else 'at-once'}"
    race = _run(store_url, tenant, kind, backfill)
    typed = kind == "retype"
    attribute = "level" if typed else "tier"
    with Memory(store_url) as memory:
        unfinished = [b for b in memory.backfills(tenant) if b.finished_at is None]
        stored = {subject: [a.value for a in memory.history(tenant, subject, attribute)
                            if a.valid_from >= T0 + timedelta(days=10)]
                  for subject in race.acknowledged}
        held = {subject: memory.get(tenant, subject, attribute) for subject in [f"h{n:02d}" for n in range(HELD_OUT)]}
        old_names = {subject: (memory.get(tenant, subject, "level"), memory.get(tenant, subject, "tier"))
                     for subject in race.acknowledged} if not typed else {}
    wrong_type = [(s, v) for values in stored.values() for s, v in enumerate(values)
                  if typed and not isinstance(v, int)]
    acknowledged = sum(len(w) for w in race.acknowledged.values())
    print(f"\n{kind} {'with' if backfill else 'without'} backfill, {WRITERS} writers, {READERS} readers: "
          f"{acknowledged} acknowledged writes ({len(wrong_type)} of the wrong type), {len(race.refused)} refused, "
          f"{race.busy} busy, {race.reads} reads ({race.reads_after} after the step, "
          f"{len(race.set_aside_reads)} of a set-aside value, {len(race.old_type_reads)} of the old type), "
          f"{len(race.stopped_backfills) + len(unfinished)} stopped backfills")
    assert race.refused == []
    assert race.stopped_backfills == [] and unfinished == []
    assert race.set_aside_reads == []
    assert acknowledged >= WRITERS and race.reads_after >= READERS
    assert stored == _expected(race, typed)  # every acknowledged write, none of the wrong type
    assert wrong_type == []
    for subject, found in held.items():
        assert found is not None and found.value == (5 if typed else "n/a"), (subject, found)
    for subject, (by_old, by_new) in old_names.items():  # the old name answers as the new one
        assert by_old == by_new, subject
    assert race.old_type_reads == []
