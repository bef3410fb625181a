"""The JSON Schema of one line of the export format, made from the tables themselves so
that it cannot drift from what ``format`` reads and writes (``docs/portability.schema.json``
is this schema, written out; a test holds the two equal)."""

from __future__ import annotations

from typing import Any

from ..store._portable import PORTABLE_TABLES, RANKED, PortableTable
from .format import FORMAT, FORMAT_VERSION

INSTANT = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$",
           "description": "UTC with microseconds"}


def _column(table: PortableTable, column: str) -> dict[str, Any]:
    if column in table.times:
        kind: dict[str, Any] = dict(INSTANT)
    elif column in table.flags:
        kind = {"type": "boolean"}
    elif column in table.blobs:
        kind = {"type": "string", "contentEncoding": "base64"}
    elif column in table.values:
        return {"description": "a JSON value, as the ledger holds it"}
    elif column in table.operations:
        kind = {"type": "integer", "minimum": 1, "description": "the rank of an operation in the tenant's log"}
    elif column in table.after:
        kind = {"type": "integer", "minimum": 0,
                "description": "the rank of the last operation recorded before (0: none)"}
    elif column in table.parents:
        kind = {"type": "integer", "minimum": 1, "description": f"the rank of a row of {table.parents[column]}"}
    else:
        kind = {"type": ["string", "number"]}
    return {"anyOf": [kind, {"type": "null"}]}


def _record(table: PortableTable) -> dict[str, Any]:
    columns = {column: _column(table, column) for column in table.columns}
    if table.name in RANKED:
        columns[RANKED[table.name]] = {"type": "integer", "minimum": 1, "description": "the row's rank in its table"}
    return {"type": "object", "additionalProperties": False, "required": ["table", "row"],
            "properties": {"table": {"const": table.name},
                           "row": {"type": "object", "additionalProperties": False, "required": sorted(columns),
                                   "properties": columns}}}


def json_schema() -> dict[str, Any]:
    header = {
        "type": "object", "required": ["format", "version", "sgam", "source", "tenant", "threads", "counts",
                                       "erasure_key_check"],
        "properties": {
            "format": {"const": FORMAT}, "version": {"const": FORMAT_VERSION}, "sgam": {"type": "string"},
            "source": {"type": "object", "required": ["backend", "schema_version", "exported_at"],
                       "properties": {"backend": {"type": "string"}, "schema_version": {"type": "integer"},
                                      "exported_at": INSTANT}},
            "tenant": {"type": "string"}, "threads": {"type": "boolean"},
            "subject": {"type": "string", "description": "a subject's export: what the tenant holds about it"},
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1},
                       "propertyNames": {"enum": [table.name for table in PORTABLE_TABLES]}},
            "erasure_key_check": {"type": "string"},
        },
    }
    closing = {"type": "object", "additionalProperties": False, "required": ["end", "records", "sha256"],
               "properties": {"end": {"const": True}, "records": {"type": "integer", "minimum": 1},
                              "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "One line of an sgam export (format version 1)",
        "description": "The first line is the header, the last the closing record; each line between "
                       "is one stored row of the tenant.",
        "oneOf": [header, closing, *(_record(table) for table in PORTABLE_TABLES)],
    }
