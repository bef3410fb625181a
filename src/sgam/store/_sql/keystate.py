"""What a write unit of work has loaded about the keys it is about to change.

A one-fact write learns its key's last change and the versions around its instant
before the rules ask (``prefetch_one``); a batch loads every key's last change and
current versions in two statements (``lock_keys``). The rules then ask about each key
once, so an answer is handed out once and dropped as soon as the unit of work changes
what it describes: versions retired, inserted or replaced; an operation appended; a
subject's or an episode's operations erased. Both backends keep it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..._core.rules import KeyTimeline, KeyView, Version, ended_all
from .ledger import KeyLookups, Near
from .session import Session

Key = tuple[str, str]


class KeyStates:
    """Per key: the last change's transaction time, the current versions, and the
    versions around one instant, each as loaded and not changed since."""

    __slots__ = ("_current", "_last", "_near")

    def __init__(self) -> None:
        self._last: dict[Key, int | None] = {}
        self._current: dict[Key, list[Version]] = {}
        self._near: dict[Key, tuple[int, Near]] = {}

    def loaded(self, keys: list[Key], last: Iterable[tuple[str, str, int | None]], current: Iterable[Version]) -> None:
        """A batch's keys: each key's last change and its current versions (by
        ``valid_from``; a key of ``keys`` without any has none)."""
        self._last.update(((subject, attribute), at) for subject, attribute, at in last)
        found: dict[Key, list[Version]] = {key: [] for key in keys}
        for version in current:
            found[(version.subject, version.attribute)].append(version)
        self._current.update((key, ended_all(versions)) for key, versions in found.items())

    def noted(self, key: Key, moment: int, near: Near, last: int | None) -> None:
        """A one-fact write's key: the versions around ``moment`` and its last change."""
        self._near[key] = (moment, near)
        self._last[key] = last

    def last(self, key: Key, otherwise: Callable[[], int | None]) -> int | None:
        """The key's last change as loaded (None: it has none), else ``otherwise()``."""
        if key in self._last:
            return self._last[key]
        return otherwise()

    def take_current(self, key: Key) -> list[Version] | None:
        """The key's current versions as loaded, handed out once."""
        return self._current.pop(key, None)

    def view(self, db: Session, tenant: str, key: Key) -> KeyView:
        """The rules' view of the key: its loaded versions if a batch loaded them, else
        index lookups (answered from the versions noted around an instant when the rules
        ask about that instant)."""
        loaded = self._current.pop(key, None)
        near = self._near.pop(key, None)
        if loaded is not None:
            return KeyTimeline(loaded)
        return KeyLookups(db, tenant, key[0], key[1], near)

    def versions_changed(self, versions: Iterable[Version]) -> None:
        """Versions of these keys were retired or inserted."""
        for version in versions:
            key = (version.subject, version.attribute)
            self._current.pop(key, None)
            self._near.pop(key, None)

    def key_changed(self, key: Key) -> None:
        """The key's versions were replaced."""
        self._current.pop(key, None)
        self._near.pop(key, None)

    def appended(self, key: Key) -> None:
        """An operation of the key was appended: its last change is another."""
        self._last.pop(key, None)

    def operations_erased(self) -> None:
        """Operations were deleted: any key's last change may be another."""
        self._last.clear()

    def forget(self, key: Key) -> None:
        self._current.pop(key, None)
        self._last.pop(key, None)
        self._near.pop(key, None)
