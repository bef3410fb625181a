"""The running call's API key checked by its first statement (``KeyToCheck``).

Every connection the backend hands out comes from ``KeyCheckingPool``, which checks the
running call's key alone on the connection before the caller gets it, so no way of
reaching the store can skip the check. A path that can send the check with its own first
statement takes the key for its checkout instead (``connection_taking_key``): a unit of
work (every write) and a pipelined read (a point read included) send ``sgam_api_key``
first in their transaction, in the same pipeline, so it costs no round trip of its own. A
key that is not live raises SQLSTATE SGK01, which aborts the transaction it is in
(``errors.py`` makes it ``AuthenticationError``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from .._access import KeyToCheck, key_to_check

CHECK_KEY = "SELECT FROM sgam_api_key(%s, %s, %s)"


def key_params(key: KeyToCheck) -> tuple[str, str, str]:
    return (key.tenant, key.key_id, key.digest)


class KeyCheckingPool(ConnectionPool[psycopg.Connection[Any]]):
    """A pool whose every checkout first checks the running call's key, if it has one not
    checked yet, in a statement of its own on the autocommit connection; unless the
    caller took the key to send with its own first statement."""

    def getconn(self, timeout: float | None = None) -> psycopg.Connection[Any]:
        conn = super().getconn(timeout)
        key = key_to_check()
        if key is None:
            return conn
        if key.taken:
            key.taken = False  # this checkout's caller sends it; a further one checks alone
            return conn
        try:
            conn.cursor(binary=True).execute(CHECK_KEY, key_params(key))
        except BaseException:
            self.putconn(conn)
            raise
        key.checked = True
        return conn


@contextmanager
def connection_taking_key(
    pool: ConnectionPool[Any], tenant: str | None = None,
) -> Iterator[tuple[psycopg.Connection[Any], KeyToCheck | None]]:
    """A connection of ``pool`` and the running call's key not checked yet, if any (and of
    ``tenant``, if given; another the pool checks alone), which the caller sends with its
    first statement and marks ``checked`` once that succeeded."""
    key = key_to_check()
    if key is not None and tenant is not None and key.tenant != tenant:
        key = None
    if key is not None:
        key.taken = True
    try:
        with pool.connection() as conn:
            yield conn, key
    finally:
        if key is not None:
            key.taken = False
