"""A write unit of work's statements, in the order they must reach the server.

Everything goes on one cursor inside the connection's pipeline, and nothing is sent until
a statement needs the cursor (``cursor()``): first, once, the tenant, then deferred
lookups (named before they are needed, each on a cursor of its own); then an operation
held back so that it may travel in its version's statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._sql.dialect import Dialect
from . import inserts
from .session import Cursor

Deferred = Callable[[int | None], None]
"""Sends deferred lookups; with an instant, the deadline probe at that instant too."""
Named = tuple[str, str, str]
"""The first spelling of the held operation's subject: tenant, subject, display."""


class WritePipeline:
    __slots__ = ("_cur", "_deferred", "_dialect", "_held", "_named", "_opened", "_tenant")

    def __init__(self, cur: Cursor, tenant: str, dialect: Dialect) -> None:
        self._cur = cur
        self._tenant = tenant
        self._dialect = dialect
        self._opened = False
        self._deferred: Deferred | None = None
        self._held: tuple[Any, ...] | None = None
        self._named: Named | None = None

    def defer(self, statement: Deferred) -> None:
        """``statement`` goes before the next one (after the tenant, if nothing has gone)."""
        self._deferred = statement

    @property
    def deferred(self) -> bool:
        """Whether a deferred statement is still to be sent."""
        return self._deferred is not None

    def open(self, now: int | None = None) -> None:
        """Set the tenant if nothing has been sent yet, then send the deferred statement (with
        the deadline probe at ``now`` if given)."""
        if not self._opened:
            self._cur.execute(self._dialect.set_tenant(self._tenant), prepare=False)
            self._opened = True
        if self._deferred is not None:
            deferred, self._deferred = self._deferred, None
            deferred(now)

    def cursor(self) -> Cursor:
        """The unit of work's cursor, once what must go before any statement has gone."""
        self.open()
        if self._held is not None:
            held, self._held = self._held, None
            named, self._named = self._named, None
            if named is None:
                self._cur.execute(inserts.OPERATION, held)
            else:
                self._cur.execute(inserts.NAMED_OPERATION, (*held, *named))
        return self._cur

    def fresh(self) -> Cursor:
        """A cursor of its own: in pipeline mode what it sends waits there, unread, until
        asked for, and the first fetch brings back everything sent before it."""
        return self._cur.connection.cursor(binary=True)

    def hold(self, operation: tuple[Any, ...]) -> None:
        """Keep ``operation`` (``inserts.OPERATION``'s row) until its version's insert,
        or the next statement, takes it; an operation held earlier goes now."""
        self.cursor()
        self._held = operation

    def name_held(self, named: Named) -> bool:
        """The held operation's subject spelling travels in its statement; False if no
        operation is held or it is already named."""
        if self._held is None or self._named is not None or named[1] != self._held[1]:
            return False
        self._named = named
        return True

    def take_held(self) -> tuple[tuple[Any, ...] | None, Named | None]:
        """The held operation and its spelling, for a statement that inserts them."""
        held, self._held = self._held, None
        named, self._named = self._named, None
        return held, named

    def finish(self) -> None:
        """Send what is still held before the commit."""
        if self._held is not None:
            self.cursor()
