"""The write unit of work's inserts: the heads of its batches (the dialect adds their
multi-row ``VALUES``, ``Dialect.batches``), and a one-fact write's operation together
with its version in one statement."""

from __future__ import annotations

from .._rows import EPISODE_COLUMNS
from .._sql.dialect import POSTGRES
from .._sql.ledger import OPERATION_FIELDS

native = POSTGRES.native
"""PostgreSQL and Citus spell placeholders alike: these statements are converted once."""

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
"""Heads of batch inserts: ``Dialect.batches`` adds the ``VALUES`` rows."""
