"""Error kind → CLI exit status → HTTP status: the one table every surface uses.

A surface never decides on its own what an error means to its caller: it looks the
error's ``kind`` up here. Kinds not in the table (a bug, not a caller's mistake) map to
exit status 1 and HTTP 500.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._errors import SgamError


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an error kind means to a caller: exit status, HTTP status and a short title."""

    exit_status: int
    http_status: int
    title: str


OUTCOMES: dict[str, Outcome] = {
    "validation": Outcome(3, 422, "Invalid input"),
    "not_found": Outcome(4, 404, "Not found"),
    "conflict": Outcome(5, 409, "Conflict with stored state"),
    "store": Outcome(6, 500, "Storage error"),
    "busy": Outcome(6, 503, "Storage busy"),
    "unsafe_database": Outcome(6, 500, "Unsafe database connection"),
    "schema_version": Outcome(6, 500, "Database schema newer than this sgam"),
    "model": Outcome(7, 503, "Model unavailable"),
    "lease_lost": Outcome(6, 409, "Extraction lease lost"),
    "scenario_file": Outcome(2, 400, "Unusable scenario file"),
    # Kinds only a network surface raises: the request itself was unusable or unauthorised.
    "malformed": Outcome(2, 400, "Malformed request"),
    "unauthenticated": Outcome(9, 401, "Missing or invalid API key"),
    "forbidden": Outcome(10, 403, "Not allowed for this key"),
    "too_large": Outcome(2, 413, "Request body too large"),
}
UNEXPECTED = Outcome(1, 500, "Internal error")


def outcome(kind: str) -> Outcome:
    return OUTCOMES.get(kind, UNEXPECTED)


def exit_status(error: SgamError) -> int:
    return outcome(error.kind).exit_status


def http_status(error: SgamError) -> int:
    return outcome(error.kind).http_status


def problem(error: SgamError, *, instance: str | None = None) -> dict[str, Any]:
    """An RFC 9457 problem document for ``error``, carrying sgam's ``kind`` (and the
    offending ``field`` when the error names one)."""
    result = outcome(error.kind)
    document: dict[str, Any] = {
        "type": f"urn:sgam:error:{error.kind}",
        "title": result.title,
        "status": result.http_status,
        "detail": error.message,
        "kind": error.kind,
    }
    if error.field is not None:
        document["field"] = error.field
    if instance is not None:
        document["instance"] = instance
    return document
