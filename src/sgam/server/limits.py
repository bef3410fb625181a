"""How many sessions a key, a tenant and the whole server may hold open at once.

A global limit alone lets one key starve every other tenant: it opens sessions until the
server refuses everyone. So each API key and each tenant has its own share, and one past
its share is refused (MCP) or loses its own oldest session (inspector); the others never
notice. The global limit stays as the last bound on memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.errors import SgamError, ValidationError


class TooManySessions(SgamError):
    """This key (or its tenant, or the server) already holds as many sessions as it may
    (HTTP 429; 503 when the whole server is full)."""

    kind = "too_many_sessions"


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """Sessions open at once: per API key, per tenant, in all."""

    per_key: int = 100
    per_tenant: int = 1_000
    total: int = 10_000

    def __post_init__(self) -> None:
        for field in ("per_key", "per_tenant", "total"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(field, value, "must be a positive number of sessions")


MCP_SESSIONS = SessionLimits()
"""MCP over streamable HTTP: an agent process holds one session per connection."""

INSPECTOR_SESSIONS = SessionLimits(per_key=20, per_tenant=500)
"""The inspector: a person signs in once per browser."""
