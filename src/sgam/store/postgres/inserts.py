"""The write unit of work's inserts: one statement per batch (``unnest`` of one array per
column), and a one-fact write's operation together with its version in one statement."""

from __future__ import annotations

from .._rows import EPISODE_COLUMNS
from .._sql.ledger import OPERATION_FIELDS
from .session import native

VERSION_COLUMNS = (
    "tenant, assertion_id, subject, attribute, value, memory_type, valid_from, valid_to, recorded_from, "
    "recorded_to, source, confidence, schema_version, supersedes, origin, closed_by"
)
VERSIONS = (
    f"INSERT INTO assertions ({VERSION_COLUMNS}) SELECT %s, * FROM unnest(%s::bigint[], %s::text[], %s::text[], "
    "%s::text[], %s::text[], %s::timestamptz[], %s::timestamptz[], %s::timestamptz[], %s::timestamptz[], %s::text[], "
    "%s::float8[], %s::int[], %s::bigint[], %s::text[], %s::text[])"
)
VERSION = native(f"INSERT INTO assertions ({VERSION_COLUMNS}) VALUES ({', '.join('?' * 16)})")
"""One version as one row of parameters: an ordinary write adds one, and fifteen
one-element arrays cost the driver an inspection of every element (a sixth of a
one-fact write's client CPU)."""
OPERATION = native(f"INSERT INTO operations ({OPERATION_FIELDS}, seq) VALUES ({', '.join('?' * 13)})")
OPERATION_AND_VERSION = f"WITH operation AS ({OPERATION}) {VERSION}"
"""An operation and the version it adds: the two inserts of an ordinary write, sent as
one statement (a data-modifying ``WITH`` runs whether or not the query reads it)."""
OPERATION_AND_VERSIONS = f"WITH operation AS ({OPERATION}) {VERSIONS}"
NAMED = native("INSERT INTO subject_names (tenant, subject, display) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
"""The first spelling of the operation's subject, sent in the operation's statement."""
NAMED_OPERATION = f"WITH operation AS ({OPERATION}) {NAMED}"
NAMED_OPERATION_AND_VERSION = f"WITH operation AS ({OPERATION}), named AS ({NAMED}) {VERSION}"
NAMED_OPERATION_AND_VERSIONS = f"WITH operation AS ({OPERATION}), named AS ({NAMED}) {VERSIONS}"
OPERATIONS = (
    f"INSERT INTO operations ({OPERATION_FIELDS}, seq) SELECT %s, * FROM unnest("
    "%s::text[], %s::text[], %s::text[], %s::timestamptz[], %s::text[], %s::text[], %s::timestamptz[], "
    "%s::text[], %s::float8[], %s::int[], %s::timestamptz[], %s::bigint[])"
)
EPISODES = (
    f"INSERT INTO episodes ({EPISODE_COLUMNS}) SELECT %s, * FROM unnest(%s::text[], %s::timestamptz[], "
    "%s::timestamptz[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int[], %s::text[], "
    "%s::timestamptz[])"
)
