"""Writers serialise per (tenant, subject) on transaction-level advisory locks.

The rules read a key, then change it; holding the subject's lock makes that atomic
without SERIALIZABLE's false conflicts between unrelated keys. Deadlock-free ordering: a
unit of work that needs a second subject lock only *tries* it; if another holds it, the
unit of work rolls back and runs again holding every subject it needed, taken up front in
lock-key order (``LockOrderError`` carries them to ``PostgresBackend.run_write``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from .session import Cursor


def lock_key(tenant: str, subject: str) -> int:
    """The advisory lock id of (tenant, subject): a stable signed 64-bit hash."""
    digest = hashlib.blake2b(f"{tenant}\x1f{subject}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class LockOrderError(Exception):
    """Internal: a second subject lock was taken by someone else; re-run holding all."""

    def __init__(self, keys: list[int]) -> None:
        super().__init__("subject lock taken out of order")
        self.keys = keys


SCHEMA_SHARED = "SELECT pg_advisory_xact_lock_shared(%s)"
SCHEMA_EXCLUSIVE = "SELECT pg_advisory_xact_lock(%s)"
"""A tenant's schema lock (``schema_lock_key``): a unit of work takes it shared before it
first reads the schema, locks a subject or appends an operation (so always before any
subject's lock), a schema step exclusively before it reads anything. READ COMMITTED then
gives a writer that waited the step's schema."""


def schema_lock_key(tenant: str) -> int:
    """The tenant's schema lock (U+0000 starts no subject, so this lock is no subject's)."""
    return lock_key(tenant, "\x00schema")


WAIT = "SELECT pg_advisory_xact_lock(k) FROM unnest(%s::bigint[]) AS k ORDER BY k"
TRY = "SELECT bool_and(pg_try_advisory_xact_lock(k)) FROM unnest(%s::bigint[]) AS k"


class SubjectLocks:
    """The subject locks one unit of work holds, taken on ``cursor()``'s connection."""

    __slots__ = ("_cursor", "_subjects", "held", "tenant")

    def __init__(self, tenant: str, cursor: Callable[[], Cursor]) -> None:
        self.tenant = tenant
        self._cursor = cursor
        self._subjects: set[str] = set()
        self.held: set[int] = set()

    def acquire(self, keys: list[int], *, wait: bool) -> bool:
        """Take ``keys`` in ascending order in one statement: waiting for each, or only
        trying (then False if any is held elsewhere; those taken stay until rollback)."""
        if wait:
            self._cursor().execute(WAIT, (keys,))
        else:
            row = self._cursor().execute(TRY, (keys,)).fetchone()
            if not row or not row[0]:
                return False
        self.held.update(keys)
        return True

    def lock(self, subjects: Iterable[str]) -> None:
        """Hold the locks of ``subjects``; wait only while holding none."""
        new = {s for s in subjects if s not in self._subjects}
        if not new:
            return
        self._subjects |= new
        wanted = sorted({lock_key(self.tenant, s) for s in new} - self.held)
        if wanted and not self.acquire(wanted, wait=not self.held):
            raise LockOrderError(sorted(self.held | set(wanted)))

    def claim(self, subject: str) -> list[int]:
        """The keys a statement the caller sends must take for ``subject`` (none if held
        already); ``taken`` or ``refused`` follows with its answer."""
        if subject in self._subjects:
            return []
        self._subjects.add(subject)
        key = lock_key(self.tenant, subject)
        return [] if key in self.held else [key]

    def taken(self, keys: list[int]) -> None:
        self.held.update(keys)

    def refused(self, keys: list[int]) -> LockOrderError:
        """What to raise when a statement only tried ``keys`` and another holds one."""
        return LockOrderError(sorted(self.held | set(keys)))
