"""A one-fact write's lookups as one statement (``sgam_write_lookups``, migration 18).

``prefetch_one`` names what a one-operation unit of work looks up; sent separately that
was the tenant, the subject's lock and seven statements, each costing the client a
flush and polls of the socket. Sent as one call of the server function, with the
deadline probe when the ledger asks it next (``PostgresWrite.lifecycle_due``), it is one
statement whose answer comes back in the unit of work's first round trip.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..._core.purpose import ConsentRow
from .._protocol import EpisodeRow
from .._rows import version_from_row
from .._sql.ledger import Near
from .._sql.lifecycle import consent_from_row
from .adapters import Micros
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


_CALL = "SELECT * FROM sgam_write_lookups(%s, %s, %s::bigint[], %s, %s, %s, %s, %s, %s, %s)"
_VERSION = slice(5, 21)
_EPISODE = slice(21, 33)
_CONSENT = slice(33, 37)


@dataclass(frozen=True)
class Found:
    """The answer: ``refused`` when a lock was held elsewhere (nothing else then)."""

    refused: bool
    due: bool | None
    version: int | None
    seq: int
    last: int | None
    near: Near
    episode: EpisodeRow | None
    consents: list[ConsentRow]
    resolved: str
    """The subject the operation's subject names now (itself unless an alias)."""


@dataclass(frozen=True)
class Lookups:
    """What one operation on (subject, attribute) at ``moment`` needs to know, and the
    locks to take first (``wait``: block for them; else only try)."""

    tenant: str
    subject: str
    attribute: str
    moment: int
    source: str | None
    locks: list[int]
    wait: bool
    version: bool
    consents: bool

    def send(self, cur: Cursor, now: int | None) -> None:
        """Queue the call on ``cur`` (a cursor of its own: in a pipeline the result waits
        there for ``receive``); with ``now``, it answers the deadline probe too."""
        cur.execute(_CALL, (
            self.tenant, None if now is None else Micros(now), self.locks or None, self.wait, self.subject,
            self.attribute, Micros(self.moment), self.source, self.version, self.consents,
        ))

    def receive(self, cur: Cursor) -> Found:
        rows: list[tuple[Any, ...]] = cur.fetchall()
        if rows and rows[0][0] == 9:
            return Found(True, None, None, 0, None, ([], []), None, [], self.subject)
        head = rows[0]
        floors = [version_from_row(r[_VERSION]) for r in rows if r[0] == 1]
        ceilings = [version_from_row(r[_VERSION]) for r in rows if r[0] == 2]
        floors.sort(key=lambda v: -v.valid_from)
        ceilings.sort(key=lambda v: v.valid_from)
        episodes = [EpisodeRow(*r[_EPISODE]) for r in rows if r[0] == 3]
        consents = [consent_from_row((r[7], *r[_CONSENT])) for r in rows if r[0] == 4]
        resolved = next((str(r[7]) for r in rows if r[0] == 5), self.subject)
        return Found(False, head[1], head[2], int(head[3]), head[4], (floors, ceilings),
                     episodes[0] if episodes else None, consents, resolved)
