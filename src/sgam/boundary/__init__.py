"""The one boundary every surface (CLI, HTTP, MCP, LangGraph, web) crosses.

Results leave as JSON through ``to_json``; an error's ``kind`` maps to one exit status and
one HTTP status in ``OUTCOMES``; ``query`` pages with opaque ``cursor`` strings. Nothing
here imports a surface or ``Memory``, so every surface shares the same answers.
"""

from .cursor import decode_cursor, encode_cursor
from .encode import dumps, to_json
from .outcomes import OUTCOMES, Outcome, exit_status, http_status, outcome, problem

__all__ = [
    "OUTCOMES",
    "Outcome",
    "decode_cursor",
    "dumps",
    "encode_cursor",
    "exit_status",
    "http_status",
    "outcome",
    "problem",
    "to_json",
]
