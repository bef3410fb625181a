"""Fast paths as requests: what a call will ask the store, named before it asks.

A backend that pays a round trip per statement answers a request with one server call
(PostgreSQL: ``sgam_point_reads``, ``sgam_write_lookups``); a backend whose statements
are function calls into the same process answers each question with its own statement
when it is asked. Either way the answers are the ones the portable reads give: a request
only says what is coming, never how it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.rules import Effect, Operation, Version


@dataclass(frozen=True, slots=True)
class PointRead:
    """A point read of one key: the consent statements about ``subject``, what
    ``subject`` and ``attribute`` mean at ``known_at`` (aliases, renames), and the version
    of each of ``timelines`` (ledger attributes of the key, in the order the read tries
    them) holding at ``at`` as known at ``known_at``."""

    subject: str
    attribute: str
    at: int
    known_at: int | None
    timelines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OneFactWrite:
    """A unit of work of one operation on (``subject``, ``attribute``) at ``moment`` citing
    ``source``: the key's lock, the tenant's schema version, the source episode, the
    key's last change, its versions around ``moment``, the subject's consent statements
    and what its name means now."""

    subject: str
    attribute: str
    moment: int
    source: str


@dataclass(frozen=True, slots=True)
class CommonWrite:
    """A write of one value that a backend may apply in one call (``CommonWriter``).
    ``operation`` is validated against the schema at its ``schema_version`` (the one the
    backend had at hand) and carries the clock's instant as ``recorded_at``, which the
    backend keeps no earlier than the key's last change; ``now`` is the deadline probe's
    instant; ``spelling``: the subject as the caller spelled it."""

    operation: Operation
    spelling: str | None
    now: int


@dataclass(frozen=True, slots=True)
class CommonWritten:
    """What the common write did: the operation's sequence number, its effect, and the
    version it added (None when it corroborated)."""

    seq: int
    effect: Effect
    version: Version | None
