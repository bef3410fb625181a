"""Browser sessions of the inspector: a random id in an HTTP-only cookie, the API key's
id and a CSRF token kept on the server.

The key itself never goes back to the browser. Every request looks the key up again by
id (``principal_of``), so revoking the key ends its sessions at once. Sessions live in
this process and end when it restarts: sign in again.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass

COOKIE = "sgam_session"
LIFETIME_SECONDS = 8 * 3600
MAX_SESSIONS = 10_000


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    key_id: str
    csrf: str
    expires: float

    def csrf_ok(self, presented: object) -> bool:
        return isinstance(presented, str) and hmac.compare_digest(presented.encode(), self.csrf.encode())


class Sessions:
    def __init__(self) -> None:
        self._by_id: dict[str, Session] = {}
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

    def open(self, key_id: str) -> Session:
        session = Session(secrets.token_urlsafe(32), key_id, secrets.token_urlsafe(32),
                          time.monotonic() + LIFETIME_SECONDS)
        with self._lock:
            self._drop_expired()
            if len(self._by_id) >= MAX_SESSIONS:  # the oldest go first
                for old in sorted(self._by_id.values(), key=lambda s: s.expires)[: MAX_SESSIONS // 10]:
                    del self._by_id[old.id]
                    self._flashes.pop(old.id, None)
            self._by_id[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        with self._lock:
            session = self._by_id.get(session_id)
            if session is not None and session.expires < time.monotonic():
                del self._by_id[session_id]
                self._flashes.pop(session_id, None)
                return None
            return session

    def close(self, session_id: str | None) -> None:
        with self._lock:
            self._by_id.pop(session_id or "", None)
            self._flashes.pop(session_id or "", None)

    def _drop_expired(self) -> None:
        now = time.monotonic()
        for session_id in [s.id for s in self._by_id.values() if s.expires < now]:
            del self._by_id[session_id]
            self._flashes.pop(session_id, None)
