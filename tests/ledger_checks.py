"""Helpers for the multi-process tests: worker bodies and the ledger's invariants.

They live outside the test modules so that ``spawn``-ed processes can import them.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from sgam import ConflictError, Memory, NotFoundError
from sgam._core.rules import KeyTimeline, Operation, Version, as_last_seen

TENANT = "acme"
SHARED_EPISODES = [f"shared{i}" for i in range(3)]
SUBJECTS = ["s0", "s1", "s2"]
ATTRIBUTES = ["a0", "a1"]
DAYS = [f"2026-06-0{d}T00:00:00Z" for d in range(1, 7)]


@dataclass
class WorkerLog:
    """What a worker saw succeed: operation ids, and episodes it erased."""

    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    erased_sources: set[str] = field(default_factory=set)
    erased_subjects: set[str] = field(default_factory=set)


def prepare(url: str) -> None:
    with Memory(url) as memory:
        for episode in SHARED_EPISODES:
            memory.add_episode(TENANT, episode, DAYS[0], f"episode {episode}")


def random_step(memory: Memory, rng: random.Random, own: list[str], name: str, counter: int,
                log: WorkerLog, before_erase: object = None) -> list[tuple[int, str]]:
    """One random operation on the shared keys; returns the (op id, source) pairs that
    were acknowledged."""
    subject, attribute = rng.choice(SUBJECTS), rng.choice(ATTRIBUTES)
    source = rng.choice(SHARED_EPISODES + own)
    day = rng.choice(DAYS)
    choice = rng.random()
    try:
        if choice < 0.40:
            return [(memory.write(TENANT, subject, attribute, rng.randrange(4), day, source).operation_id, source)]
        if choice < 0.55:
            return [(memory.retract(TENANT, subject, attribute, day, source).operation_id, source)]
        if choice < 0.70:
            return [(memory.correct(TENANT, subject, attribute, day, rng.randrange(4), source).operation_id,
                     source)]
        if choice < 0.82:
            facts = [dict(subject=rng.choice(SUBJECTS), attribute=rng.choice(ATTRIBUTES),
                          value=rng.randrange(4), valid_from=rng.choice(DAYS), source=source)
                     for _ in range(3)]
            return [(r.operation_id, source) for r in memory.write_many(TENANT, facts)]
        if choice < 0.92 or not own:
            episode = f"{name}-{counter}"
            memory.add_episode(TENANT, episode, DAYS[0], "own episode")
            own.append(episode)
            return []
        victim = own.pop(rng.randrange(len(own)))
        if callable(before_erase):
            before_erase(victim)
        log.erased_sources.add(victim)
        memory.forget_episode(TENANT, victim)
        return []
    except (ConflictError, NotFoundError):
        return []


def concurrent_worker(url: str, name: str, steps: int, seed: int) -> WorkerLog:
    rng = random.Random(seed)
    log = WorkerLog()
    own: list[str] = []
    with Memory(url) as memory:
        for counter in range(steps):
            log.acknowledged += random_step(memory, rng, own, name, counter, log)
            if rng.random() < 0.05:
                tmp = f"tmp-{rng.randrange(2)}"
                memory.write(TENANT, tmp, "a0", counter, rng.choice(DAYS), SHARED_EPISODES[0])
                log.erased_subjects.add(tmp)
                memory.forget_subject(TENANT, tmp)
    return log


def crash_worker(url: str, name: str, ack_path: str, seed: int) -> None:
    """Runs until killed; every op id is appended and fsync'd only after the call
    returned, and an erasure's target is logged (as ``-episode``) before it is attempted."""
    rng = random.Random(seed)
    log = WorkerLog()
    own: list[str] = []
    with Memory(url) as memory, open(ack_path, "a", encoding="utf-8") as out:
        def durable(line: str) -> None:
            out.write(line + "\n")
            out.flush()
            os.fsync(out.fileno())

        durable("ready")
        for counter in range(100_000):
            ids = random_step(memory, rng, own, name, counter, log,
                              before_erase=lambda victim: durable(f"-{victim}"))
            for op_id, source in ids:
                durable(f"{op_id} {source}")


def read_ack_file(path: Path) -> tuple[list[tuple[int, str]], set[str]]:
    ids: list[tuple[int, str]] = []
    erased: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-"):
            erased.add(line[1:])
        elif line and line != "ready":
            op_id, source = line.split(" ", 1)
            ids.append((int(op_id), source))
    return ids, erased


def _strip(version: Version) -> tuple[object, ...]:
    return (version.assertion_id, version.subject, version.attribute, version.value,
            version.valid_from, version.valid_to, version.recorded_from, version.recorded_to,
            version.source, version.supersedes, version.origin, version.closed_by)


def check_ledger(url: str, acknowledged: list[tuple[int, str]], erased_sources: set[str],
                 erased_subjects: set[str], *, erasures_finished: bool) -> int:
    """Assert the invariants; return how many operations are stored. An acknowledged op
    may be missing only if its source episode was erased."""
    assert len(acknowledged) == len(set(acknowledged)), "an op id was acknowledged twice"
    stored: dict[int, Operation] = {}
    with Memory(url) as memory, memory.backend.read(TENANT) as reader:
        subjects = SUBJECTS + sorted(erased_subjects)
        for subject in subjects:
            for attribute in ATTRIBUTES:
                ops = reader.operations(subject, attribute)
                for op in ops:
                    assert op.seq not in stored, f"duplicate op {op.seq}"
                    stored[op.seq] = op
                versions = reader.versions(subject, attribute)
                _check_no_overlap(versions)
                timeline = KeyTimeline()
                timeline.replay(ops)
                expected = sorted((_strip(v) for v in as_last_seen(timeline.all_versions())), key=repr)
                assert sorted((_strip(v) for v in versions), key=repr) == expected, (subject, attribute)
    lost = [op_id for op_id, source in acknowledged if op_id not in stored and source not in erased_sources]
    assert not lost, f"acknowledged ops are missing: {lost}"
    if erasures_finished:
        assert not [op for op in stored.values() if op.source in erased_sources], "erased op survived"
    return len(stored)


def _check_no_overlap(versions: list[Version]) -> None:
    """At no (valid instant, recorded instant) do two versions of the key both hold."""
    end = 2**62
    for i, a in enumerate(versions):
        for b in versions[i + 1:]:
            recorded = a.recorded_from < (b.recorded_to or end) and b.recorded_from < (a.recorded_to or end)
            valid = a.valid_from < (b.valid_to or end) and b.valid_from < (a.valid_to or end)
            assert not (recorded and valid), f"overlapping versions {a} and {b}"
