"""Shared fixtures: a fresh SQLite-backed ``Memory`` with a clock the test controls.

``memory`` is deliberately simple so that it can later be parameterised over backends
(SQLite, PostgreSQL) without touching the tests that use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sgam import Memory

START = datetime(2026, 7, 1, tzinfo=UTC)


class ManualClock:
    """Transaction time that moves only when the test says so."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def memory(tmp_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory(f"sqlite:///{tmp_path / 'sgam.db'}", clock=clock) as fresh:
        yield fresh
