"""A one-fact write's lookups as plain statements in one round trip.

``prefetch_one`` names what a one-operation unit of work looks up (``OneFactWrite``).
Each lookup is the statement the portable read sends (``store/_sql``), each on a cursor of
its own in the unit of work's pipeline, sent with the deadline probe when the ledger asks
it next (``PostgresWrite.lifecycle_due``): their rows come back in the unit of work's first
round trip. The subject's lock goes first, and each lookup is a statement of its own, so
at READ COMMITTED each sees what committed before the lock was granted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._core.purpose import ConsentRow
from .._records import EpisodeRow
from .._requests import OneFactWrite
from .._sql.counters import DRAW
from .._sql.dialect import POSTGRES
from .._sql.ledger import EPISODE, LAST_RECORDED, NEAR, SCHEMA_VERSION, Near, near_from_rows
from .._sql.lifecycle import CONSENTS, consent_from_row, consents_params
from .._sql.subjects import RESOLVE
from .adapters import Micros
from .locks import TRY, WAIT
from .session import Cursor

DUE = "SELECT sgam_lifecycle_due(%s, %s)"
_SEQ = POSTGRES.native(DRAW)

Sent = dict[str, Cursor]
"""The cursor of each lookup sent, by what it looks up."""


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
    """What ``request`` needs to know, and the locks to take first (``wait``: block for
    them; else only try); the schema version and the consent statements only if asked."""

    tenant: str
    request: OneFactWrite
    source: str | None
    locks: list[int]
    wait: bool
    version: bool
    consents: bool

    def send(self, fresh: Callable[[], Cursor], now: int | None) -> Sent:
        """Queue the lock and the lookups, each on a cursor of its own from ``fresh`` (in a
        pipeline the rows wait there for ``receive``); with ``now``, the deadline probe too."""
        sent: Sent = {}

        def ask(name: str, statement: str, params: tuple[Any, ...]) -> None:
            cur = fresh()
            cur.execute(statement, params)
            sent[name] = cur

        tenant, request = self.tenant, self.request
        key = (tenant, request.subject, request.attribute)
        moment = Micros(request.moment)
        if self.locks:
            ask("locks", WAIT if self.wait else TRY, (self.locks,))
        if now is not None:
            ask("due", DUE, (tenant, Micros(now)))
        if self.version:
            ask("version", POSTGRES.native(SCHEMA_VERSION), (tenant,))
        ask("meant", POSTGRES.native(RESOLVE), (tenant, request.subject))
        ask("seq", _SEQ, (tenant, "operations", 1))
        ask("last", POSTGRES.native(LAST_RECORDED), key)
        ask("near", POSTGRES.native(NEAR), (*key, moment, *key, moment))
        if self.source is not None:
            ask("episode", POSTGRES.native(EPISODE), (tenant, self.source))
        if self.consents:
            ask("consents", POSTGRES.native(CONSENTS), consents_params(tenant, request.subject))
        return sent

    def receive(self, sent: Sent) -> Found:
        subject = self.request.subject
        if self.locks and not self.wait:
            taken = sent["locks"].fetchone()
            if not taken or not taken[0]:
                return Found(True, None, None, 0, None, ([], []), None, [], subject)
        due = None if "due" not in sent else bool(_first(sent["due"]))
        version = None if not self.version else int(_first(sent["version"]) or 0)
        meant = _first(sent["meant"])
        seq = int(_first(sent["seq"]))
        last = _first(sent["last"])
        near = near_from_rows(sent["near"].fetchall())
        episode_row = None if self.source is None else sent["episode"].fetchone()
        consents = [] if not self.consents else [consent_from_row(row) for row in sent["consents"].fetchall()]
        return Found(False, due, version, seq, last, near, None if episode_row is None else EpisodeRow(*episode_row),
                     consents, subject if meant is None else str(meant))


def _first(cur: Cursor) -> Any:
    """The first column of the first row, or None when there is no row."""
    row = cur.fetchone()
    return None if row is None else row[0]
