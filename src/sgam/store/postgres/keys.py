"""The running call's API key checked by its first statement (``KeyToCheck``, module v33).

Each way a call reaches PostgreSQL sends the check with what it sends first: the point
read and the common write call their keyed twins (one statement), a unit of work and a
pipelined read put it first in their transaction, and any other path checks it alone on
its connection before anything else. A key that is not live raises SQLSTATE SGK01, which
aborts the transaction it is in (``errors.py`` makes it ``AuthenticationError``).
"""

from __future__ import annotations

from typing import Any

import psycopg

from .._access import KeyToCheck, key_to_check

CHECK_KEY = "SELECT FROM sgam_api_key(%s, %s, %s)"


def key_params(key: KeyToCheck) -> tuple[str, str, str]:
    return (key.tenant, key.key_id, key.digest)


def check_key_alone(conn: psycopg.Connection[Any]) -> None:
    """The running call's key checked in a statement of its own (its own transaction on
    the autocommit connection), on a path that has no statement to send it with."""
    key = key_to_check()
    if key is not None:
        conn.cursor(binary=True).execute(CHECK_KEY, key_params(key))
        key.checked = True
