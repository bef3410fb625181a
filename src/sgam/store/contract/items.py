"""LangGraph store items: their current state (the ledger keeps their history)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._records import (
    ItemRow,
)
from .scope import Scope


class ItemReads(Scope, Protocol):
    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]:
        """Rows of these (namespace, key) pairs as stored: deleted and expired ones too."""
        ...
    def item_page(self, prefix: str | None, now: int, offset: int, limit: int | None) -> list[ItemRow]:
        """Live items under a namespace prefix, most recently updated first (``limit``
        None: all of them)."""
        ...
    def keyword_items(self, prefix: str | None, terms: Sequence[str], now: int, limit: int) -> list[tuple[str, str]]:
        """(namespace, key) of live items whose search text matches any term, best first."""
        ...
    def item_namespaces(self, prefix: str | None, now: int) -> list[str]:
        """Distinct namespaces holding live items under a prefix."""
        ...


class ItemWrites(Scope, Protocol):
    def items(self, keys: Sequence[tuple[str, str]]) -> list[ItemRow]: ...
    def put_item(self, row: ItemRow) -> None:
        """Insert or replace the item's row (and its full-text entry)."""
        ...
    def refresh_items(self, keys: Sequence[tuple[str, str]], now: int) -> None:
        """Restart the TTL of live, unexpired items that have one, from ``now``."""
        ...
    def delete_item(self, namespace: str, key: str) -> int:
        """Erasure: remove the item's row and index entries."""
        ...
    def expired_items(self, now: int, limit: int) -> list[ItemRow]:
        """Rows (live or deleted) whose ``expires_at`` <= ``now``, soonest first."""
        ...
    def set_key_expiry(self, subject: str, attribute: str, expires_at: int | None) -> None:
        """Set the deadline of every operation of a ledger key (an item's TTL covers its
        whole history); None: no deadline."""
        ...
