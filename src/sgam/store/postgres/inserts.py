"""The write unit of work's inserts: a batch as one multi-row ``VALUES`` statement, and a
one-fact write's operation together with its version in one statement.

Multi-row ``VALUES`` rather than ``INSERT … SELECT … FROM unnest(arrays)``: Citus turns an
``INSERT … SELECT`` from a function into ``COPY`` on the workers, where row-level security
is not checked (it refuses, or with RLS off would skip the tenant check). PostgreSQL alone
takes either at the same cost, so both use this one. A batch wider than a statement's
65,535 parameters is sent as several statements in the same pipeline."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from .._rows import EPISODE_COLUMNS
from .._sql.ledger import OPERATION_FIELDS
from .session import native

VERSION_COLUMNS = (
    "tenant, assertion_id, subject, attribute, value, memory_type, valid_from, valid_to, recorded_from, "
    "recorded_to, source, confidence, schema_version, supersedes, origin, closed_by"
)
VERSION = native(f"INSERT INTO assertions ({VERSION_COLUMNS}) VALUES ({', '.join('?' * 16)})")
"""One version as one row of parameters: what an ordinary write adds."""
OPERATION = native(f"INSERT INTO operations ({OPERATION_FIELDS}, seq) VALUES ({', '.join('?' * 13)})")
OPERATION_AND_VERSION = f"WITH operation AS ({OPERATION}) {VERSION}"
"""An operation and the version it adds: the two inserts of an ordinary write, sent as
one statement (a data-modifying ``WITH`` runs whether or not the query reads it)."""
NAMED = native("INSERT INTO subject_names (tenant, subject, display) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
"""The first spelling of the operation's subject, sent in the operation's statement."""
NAMED_OPERATION = f"WITH operation AS ({OPERATION}) {NAMED}"
NAMED_OPERATION_AND_VERSION = f"WITH operation AS ({OPERATION}), named AS ({NAMED}) {VERSION}"

VERSIONS = f"INSERT INTO assertions ({VERSION_COLUMNS})"
OPERATION_AND_VERSIONS = f"WITH operation AS ({OPERATION}) {VERSIONS}"
NAMED_OPERATION_AND_VERSIONS = f"WITH operation AS ({OPERATION}), named AS ({NAMED}) {VERSIONS}"
OPERATIONS = f"INSERT INTO operations ({OPERATION_FIELDS}, seq)"
EPISODES = f"INSERT INTO episodes ({EPISODE_COLUMNS})"
"""Heads of batch inserts: ``batches`` adds the ``VALUES`` rows."""

MAX_PARAMETERS = 65_535
"""The most parameters the protocol carries in one statement."""


@lru_cache(maxsize=512)
def with_rows(head: str, width: int, count: int, placeholder: str = "%s") -> str:
    """``head`` followed by ``count`` rows of ``width`` parameters each (remembered: batch
    sizes repeat); ``placeholder``: ``?`` for a portable statement."""
    row = "(" + ", ".join([placeholder] * width) + ")"
    return f"{head} VALUES {', '.join([row] * count)}"


def batches(head: str, rows: Sequence[tuple[Any, ...]], first: str | None = None,
            prefix: tuple[Any, ...] = (), placeholder: str = "%s") -> Iterator[tuple[str, tuple[Any, ...]]]:
    """The statements and parameters that insert ``rows`` (each of the same width) under
    ``head``; the first statement may be ``first`` (a head that also sends ``prefix``'s
    parameters before the rows, as a held operation's ``WITH``)."""
    if not rows:
        return
    width = len(rows[0])
    size = max(1, (MAX_PARAMETERS - len(prefix)) // width)
    for start in range(0, len(rows), size):
        chunk = rows[start:start + size]
        flat = tuple(value for row in chunk for value in row)
        if start == 0 and first is not None:
            yield with_rows(first, width, len(chunk), placeholder), (*prefix, *flat)
        else:
            yield with_rows(head, width, len(chunk), placeholder), flat
