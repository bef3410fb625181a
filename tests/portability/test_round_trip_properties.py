"""Generated histories (writes, retractions, corrections, erasures, aliases, renames,
consent and expiry, each at its own transaction time) carried to another store answer
every read as they did, at every instant the export records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import Memory, SgamError
from tests.conftest import ManualClock

from .reads import reads, recorded_instants, records
from .test_round_trip import carried

TENANT = "acme"
SUBJECTS = ("ann", "bob", "cy")
ATTRIBUTES = ("city", "role")
DAY0 = datetime(2026, 6, 1, tzinfo=UTC)
VALUES: tuple[Any, ...] = ("x", "y", 1, 2.5, True, {"k": [1, 2]}, None)

steps = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(SUBJECTS), st.sampled_from(ATTRIBUTES),
              st.sampled_from(VALUES[:-1]), st.integers(0, 6), st.booleans()),
    st.tuples(st.just("retract"), st.sampled_from(SUBJECTS), st.sampled_from(ATTRIBUTES), st.integers(0, 6)),
    st.tuples(st.just("correct"), st.sampled_from(SUBJECTS), st.sampled_from(ATTRIBUTES),
              st.sampled_from(VALUES[:-1]), st.integers(0, 6)),
    st.tuples(st.just("forget_episode"), st.integers(0, 3)),
    st.tuples(st.just("forget_subject"), st.sampled_from(SUBJECTS)),
    st.tuples(st.just("alias"), st.sampled_from(SUBJECTS), st.sampled_from(SUBJECTS)),
    st.tuples(st.just("unalias"), st.sampled_from(SUBJECTS)),
    st.tuples(st.just("rename"), st.sampled_from(ATTRIBUTES)),
    st.tuples(st.just("consent"), st.sampled_from(SUBJECTS), st.booleans()),
)


def _apply(memory: Memory, clock: ManualClock, step: tuple[Any, ...], renamed: list[int]) -> None:
    clock.advance(3600)
    kind = step[0]
    episode = f"e{int(clock().timestamp()) % 4}"
    if memory.episode(TENANT, episode) is None:
        memory.add_episode(TENANT, episode, DAY0, f"text of {episode}")
    day = lambda offset: DAY0 + timedelta(days=offset)  # noqa: E731 - one line each below
    if kind == "write":
        expires = clock() + timedelta(hours=5) if step[5] else None
        memory.write(TENANT, step[1], step[2], step[3], day(step[4]), episode, expires_at=expires)
    elif kind == "retract":
        memory.retract(TENANT, step[1], step[2], day(step[3]), episode)
    elif kind == "correct":
        memory.correct(TENANT, step[1], step[2], day(step[4]), step[3], episode)
    elif kind == "forget_episode":
        memory.forget_episode(TENANT, f"e{step[1]}")
    elif kind == "forget_subject":
        memory.forget_subject(TENANT, step[1])
    elif kind == "alias":
        memory.alias(TENANT, step[1], step[2])
    elif kind == "unalias":
        memory.unalias(TENANT, step[1])
    elif kind == "rename":
        renamed[0] += 1
        memory.rename_attribute(TENANT, step[1], f"{step[1]}_{renamed[0]}")
    else:
        memory.consent(TENANT, step[1], step[2])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(steps, min_size=1, max_size=14))
def test_a_generated_history_carried_answers_the_same(
    history: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)
    with TemporaryDirectory() as folder:
        root = Path(folder)
        clock = ManualClock()
        with Memory(f"sqlite:///{root / 'first.db'}", clock=clock) as first, \
                Memory(f"sqlite:///{root / 'second.db'}", clock=clock) as second:
            renamed = [0]
            for step in history:
                try:
                    _apply(first, clock, step, renamed)
                except SgamError:
                    pass  # refused: nothing recorded, as in any store
            clock.advance(7200)
            files = carried(first, TENANT, [second], root)
            assert records(files[0]) == records(_plain_of(files[1]))
            instants = recorded_instants(files[0])
            assert reads(second, TENANT, instants) == reads(first, TENANT, instants)


def _plain_of(path: Path) -> Path:
    import gzip

    plain = path.with_suffix("")
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    return plain
