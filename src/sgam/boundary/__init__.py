"""The one boundary every surface (CLI, HTTP, MCP, LangGraph, web) crosses.

Results leave as JSON through ``to_json``; pydantic's complaints about a request become one
validation error naming every field (``invalid_fields``); a recall has one JSON shape
(``recall_json``); an error's ``kind`` maps to one exit status and
one HTTP status in ``ERROR_STATUSES``; ``query`` pages with opaque ``cursor`` strings. Nothing
here imports a surface or ``Memory``, so every surface shares the same answers.
"""

from .cursor import decode_cursor, encode_cursor
from .encode import dumps, to_json, to_json_data
from .invalid import described, invalid_fields
from .shapes import recall_json
from .statuses import ERROR_STATUSES, ErrorStatus, exit_status, http_status, problem, status_of

__all__ = [
    "ERROR_STATUSES",
    "ErrorStatus",
    "decode_cursor",
    "described",
    "dumps",
    "encode_cursor",
    "exit_status",
    "http_status",
    "invalid_fields",
    "problem",
    "recall_json",
    "status_of",
    "to_json",
    "to_json_data",
]
