"""A call's API key checked by its first statement (``CallContext.key``).

A unit of work and a pipelined read send the check first in their pipeline, so it costs
them no round trip; a read of one statement and a path of its own (``BoundBackend``)
check it alone first. A key that is not live raises SQLSTATE SGK01, which aborts the
transaction it is in (``errors.py`` makes it ``AuthenticationError``).
"""

from __future__ import annotations

from .._context import KeyToCheck

CHECK_KEY = "SELECT FROM sgam_api_key(%s, %s, %s)"


def key_params(key: KeyToCheck) -> tuple[str, str, str]:
    return (key.tenant, key.key_id, key.digest)
