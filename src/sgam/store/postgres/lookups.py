"""A one-fact write's lookups as one statement (``sgam_write_lookups``, migration 18).

``prefetch_one`` names what a one-operation unit of work looks up (``OneFactWrite``);
sent separately that was the tenant, the subject's lock and seven statements, each
costing the client a flush and polls of the socket. Sent as one call of the server
function, with the deadline probe when the ledger asks it next
(``PostgresWrite.lifecycle_due``), it is one statement whose answer comes back in the
unit of work's first round trip. Its rows are read by column name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg.rows import dict_row

from ..._core.purpose import ConsentRow
from .._protocol import EpisodeRow
from .._requests import OneFactWrite
from .._rows import EPISODE_COLUMNS, VERSION_COLUMNS, version_from_row
from .._sql.ledger import Near
from .adapters import Micros
from .session import Cursor

_CALL = "SELECT * FROM sgam_write_lookups(%s, %s, %s::bigint[], %s, %s, %s, %s, %s, %s, %s)"
VERSION_NAMES = tuple(column.strip() for column in VERSION_COLUMNS.split(","))
_EPISODE_NAMES = tuple(f"e_{column.strip()}" for column in EPISODE_COLUMNS.split(","))

# the parts of the answer after its head row (part 0): versions, the episode, statements
_FLOOR, _CEILING, _EPISODE, _CONSENT, _MEANT, _REFUSED = 1, 2, 3, 4, 5, 9


def version_of(row: dict[str, Any]) -> Any:
    """The version in a row of a server function whose version columns are named as the
    table's."""
    return version_from_row(tuple(row[name] for name in VERSION_NAMES))


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

    def send(self, cur: Cursor, now: int | None) -> None:
        """Queue the call on ``cur`` (a cursor of its own: in a pipeline the result waits
        there for ``receive``); with ``now``, it answers the deadline probe too."""
        cur.row_factory = dict_row  # type: ignore[assignment]
        request = self.request
        cur.execute(_CALL, (
            self.tenant, None if now is None else Micros(now), self.locks or None, self.wait, request.subject,
            request.attribute, Micros(request.moment), self.source, self.version, self.consents,
        ))

    def receive(self, cur: Cursor) -> Found:
        rows: list[dict[str, Any]] = cur.fetchall()  # type: ignore[assignment]
        if rows and rows[0]["part"] == _REFUSED:
            return Found(True, None, None, 0, None, ([], []), None, [], self.request.subject)
        head = rows[0]
        floors = [version_of(r) for r in rows if r["part"] == _FLOOR]
        ceilings = [version_of(r) for r in rows if r["part"] == _CEILING]
        floors.sort(key=lambda v: -v.valid_from)
        ceilings.sort(key=lambda v: v.valid_from)
        episodes = [EpisodeRow(*(r[name] for name in _EPISODE_NAMES)) for r in rows if r["part"] == _EPISODE]
        consents = [ConsentRow(r["subject"], r["c_purpose"], bool(r["c_granted"]), r["c_changed_at"], r["c_seq"])
                    for r in rows if r["part"] == _CONSENT]
        resolved = next((str(r["subject"]) for r in rows if r["part"] == _MEANT), self.request.subject)
        return Found(False, head["due"], head["version"], int(head["seq"]), head["last_at"], (floors, ceilings),
                     episodes[0] if episodes else None, consents, resolved)
