"""Browser sessions of the inspector: a random id in an HTTP-only cookie, the API key's
id and a CSRF token kept on the server.

The key itself never goes back to the browser. Every request looks the key up again by
id (``principal_of``), so revoking the key ends its sessions at once. Sessions live in
this process and end when it restarts: sign in again.

Each key and each tenant has its own share of sessions (``SessionLimits``): signing in
once more past it ends that key's (or tenant's) oldest session, never another tenant's.
Only when the whole server is full is a sign-in refused.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from ..limits import SessionLimits, TooManySessions

COOKIE = "sgam_session"
LIFETIME_SECONDS = 8 * 3600


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    key_id: str
    tenant: str
    csrf: str
    expires: float

    def csrf_ok(self, presented: object) -> bool:
        return isinstance(presented, str) and hmac.compare_digest(presented.encode(), self.csrf.encode())


class Sessions:
    """Open sessions, oldest first overall, per key and per tenant (every session has
    the same lifetime, so the oldest is also the first to expire)."""

    def __init__(self, limits: SessionLimits) -> None:
        self.limits = limits
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._by_key: dict[str, OrderedDict[str, None]] = {}
        self._by_tenant: dict[str, OrderedDict[str, None]] = {}
        self._flashes: dict[str, str] = {}
        self._lock = threading.Lock()

    def flash(self, session_id: str, message: str) -> None:
        """A message the session's next page shows once (what a form just did)."""
        with self._lock:
            if session_id in self._by_id:
                self._flashes[session_id] = message

    def take_flash(self, session_id: str) -> str | None:
        with self._lock:
            return self._flashes.pop(session_id, None)

    def open(self, key_id: str, tenant: str) -> Session:
        session = Session(secrets.token_urlsafe(32), key_id, tenant, secrets.token_urlsafe(32),
                          time.monotonic() + LIFETIME_SECONDS)
        with self._lock:
            self._drop_expired()
            self._make_room(self._by_key.get(key_id), self.limits.per_key)
            self._make_room(self._by_tenant.get(tenant), self.limits.per_tenant)
            if len(self._by_id) >= self.limits.total:
                raise TooManySessions("the inspector has as many sessions open as it may: try again later")
            self._by_id[session.id] = session
            self._by_key.setdefault(key_id, OrderedDict())[session.id] = None
            self._by_tenant.setdefault(tenant, OrderedDict())[session.id] = None
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        with self._lock:
            session = self._by_id.get(session_id)
            if session is not None and session.expires < time.monotonic():
                self._drop(session_id)
                return None
            return session

    def close(self, session_id: str | None) -> None:
        with self._lock:
            self._drop(session_id or "")

    def _make_room(self, own: OrderedDict[str, None] | None, limit: int) -> None:
        """End the oldest of ``own`` (one key's or one tenant's sessions) until one more fits."""
        while own and len(own) >= limit:
            self._drop(next(iter(own)))

    def _drop_expired(self) -> None:
        now = time.monotonic()
        while self._by_id:
            oldest = next(iter(self._by_id.values()))
            if oldest.expires >= now:
                break
            self._drop(oldest.id)

    def _drop(self, session_id: str) -> None:
        session = self._by_id.pop(session_id, None)
        self._flashes.pop(session_id, None)
        if session is None:
            return
        for index, name in ((self._by_key, session.key_id), (self._by_tenant, session.tenant)):
            own = index.get(name)
            if own is not None:
                own.pop(session_id, None)
                if not own:
                    del index[name]
