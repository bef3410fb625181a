"""The action ledger: an action's intent recorded before it runs, its outcome after."""

from __future__ import annotations

from typing import Protocol

from .._records import (
    ActionRow,
)
from .scope import Scope


class ActionReads(Scope, Protocol):
    def actions(self, status: str | None, limit: int) -> list[ActionRow]: ...
    def actions_of_thread(self, thread_id: str, limit: int) -> list[ActionRow]:
        """The actions made for a checkpoint thread, in the order they began."""
        ...


class ActionWrites(Scope, Protocol):
    def action(self, action_key: str) -> ActionRow | None: ...
    def insert_action(self, row: ActionRow) -> None: ...
    def update_action(self, row: ActionRow) -> None:
        """Store the status, result, error, attempts and finish time of ``row``."""
        ...
