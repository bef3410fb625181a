"""A call's API key checked by its first statement (``CallContext.key``).

A unit of work and a pipelined read send the check first in their pipeline, so it costs
them no round trip; a read of one statement and a path of its own (``BoundBackend``)
check it alone first. The check runs as the key's tenant (``SET LOCAL``, as every
tenant's statement: row-level security binds ``api_keys``); a key that is not live
raises SQLSTATE SGK01 (``sgam_api_key``, the baseline), which aborts the transaction it
is in (``errors.py`` makes it ``AuthenticationError``).
"""

from __future__ import annotations

from typing import Any

import psycopg

from .._context import KeyToCheck
from .._sql.dialect import Dialect
from .session import Cursor

CHECK_KEY = "SELECT sgam_api_key(%s, %s, %s)"


def send_key_check(cur: Cursor, dialect: Dialect, key: KeyToCheck) -> None:
    """Send the check on ``cur``, inside a transaction: the key's tenant set, then the
    check. Whatever runs after it for another tenant sets its own."""
    cur.execute(dialect.set_tenant(key.tenant), prepare=False)
    cur.execute(CHECK_KEY, (key.tenant, key.key_id, key.digest))


def check_key_alone(conn: psycopg.Connection[Any], dialect: Dialect, key: KeyToCheck) -> None:
    """The check as a pipeline of its own on an autocommit connection: one round trip,
    in the transaction the dialect begins or else in the Sync's implicit one."""
    with conn.pipeline():
        if dialect.explicit:
            conn.cursor().execute(dialect.begin)
        send_key_check(conn.cursor(binary=True), dialect, key)
        if dialect.explicit:
            conn.cursor().execute("COMMIT")
