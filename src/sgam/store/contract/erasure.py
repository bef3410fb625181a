"""What erasure needs of the log beyond the ledger's writes: find, delete, re-derive."""

from __future__ import annotations

from typing import Protocol

from ..._core.rules import Version
from .scope import Scope


class ErasureWrites(Scope, Protocol):
    """What erasure needs beyond the ledger's writes: find, delete, re-derive."""

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]: ...
    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]: ...
    def delete_operations_of_subject(self, subject: str) -> int: ...
    def delete_operations_of_source(self, episode_id: str) -> int: ...
    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None: ...
