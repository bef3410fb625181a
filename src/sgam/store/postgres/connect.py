"""Opening a PostgreSQL connection: a bounded wait and one line that names the cause.

The driver reports a failed connection in several lines (one per address tried, with
advice), and a pool retries it quietly until its own timeout. sgam tries one connection
first, gives up after ``CONNECT_TIMEOUT`` seconds, and says what went wrong in words a
user can act on: refused, unknown host, missing database, authentication, no answer.
The password is never shown.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from ..._core.errors import StoreError

CONNECT_TIMEOUT = 5

_CAUSES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Connection refused", re.I),
     "connection refused (is PostgreSQL running there and accepting TCP/IP connections?)"),
    (re.compile(r"failed to resolve host '([^']*)'|could not translate host name \"([^\"]*)\"", re.I),
     "unknown host {0}"),
    (re.compile(r"database \"([^\"]*)\" does not exist", re.I), "database {0!r} does not exist on that server"),
    (re.compile(r"password authentication failed for user \"([^\"]*)\"", re.I),
     "password authentication failed for user {0!r}"),
    (re.compile(r"role \"([^\"]*)\" does not exist", re.I), "role {0!r} does not exist on that server"),
    (re.compile(r"no password supplied", re.I), "the server asks for a password and the URL gives none"),
    (re.compile(r"timeout expired", re.I), f"no answer within {CONNECT_TIMEOUT} s"),
)


def where(url: str) -> str:
    """``user@host:port/dbname`` of a URL, without its password."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "the given URL"
    user = f"{info['user']}@" if info.get("user") else ""
    port = f":{info['port']}" if info.get("port") else ""
    return f"{user}{info.get('host') or 'localhost'}{port}/{info.get('dbname') or ''}"


def cause(exc: psycopg.Error) -> str:
    """The reason a connection failed, in one line."""
    text = str(exc)
    for pattern, message in _CAUSES:
        match = pattern.search(text)
        if match is not None:
            names = [group for group in match.groups() if group is not None]
            return message.format(*names)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first.rsplit(" failed: ", 1)[-1]


def connection_error(url: str, exc: psycopg.Error) -> StoreError:
    return StoreError(f"cannot connect to PostgreSQL at {where(url)}: {cause(exc)}")


def options(url: str) -> dict[str, Any]:
    """Connection keywords: a bounded wait unless the URL sets its own ``connect_timeout``."""
    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        given = {}
    return {} if "connect_timeout" in given else {"connect_timeout": CONNECT_TIMEOUT}


def connect(url: str, **kwargs: Any) -> psycopg.Connection[Any]:
    """``psycopg.connect`` with a bounded wait; a failure is one ``StoreError`` line."""
    try:
        return psycopg.connect(url, **options(url), **kwargs)
    except psycopg.OperationalError as exc:
        raise connection_error(url, exc) from None
    except psycopg.ProgrammingError as exc:  # a URL the driver cannot read
        raise StoreError(f"cannot connect to PostgreSQL: the URL is not valid ({cause(exc)})") from None
