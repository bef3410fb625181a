"""Episodes: what a write records and a read finds by id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._records import (
    EpisodeRow,
)
from .scope import Scope


class EpisodeReads(Scope, Protocol):
    def episode(self, episode_id: str) -> EpisodeRow | None: ...


class EpisodeWrites(EpisodeReads, Protocol):
    def prefetch_episodes(self, episode_ids: Sequence[str]) -> None:
        """A batch names the episodes it will look up, so a backend that pays a round trip
        per statement can fetch them in one."""
        ...
    def insert_episodes(self, rows: Sequence[EpisodeRow]) -> None: ...
    def delete_episode(self, episode_id: str) -> int: ...
