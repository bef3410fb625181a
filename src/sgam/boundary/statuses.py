"""Error kind → CLI exit status → HTTP status: the one table every surface uses.

A surface never decides on its own what an error means to its caller: it looks the
error's ``kind`` up here. Kinds not in the table (a bug, not a caller's mistake) map to
exit status 1 and HTTP 500.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._core.errors import InvalidFields, SgamError


@dataclass(frozen=True, slots=True)
class ErrorStatus:
    """What an error kind means to a caller: exit status, HTTP status and a short title."""

    exit_status: int
    http_status: int
    title: str


ERROR_STATUSES: dict[str, ErrorStatus] = {
    "validation": ErrorStatus(3, 422, "Invalid input"),
    "not_found": ErrorStatus(4, 404, "Not found"),
    "conflict": ErrorStatus(5, 409, "Conflict with stored state"),
    "action_in_doubt": ErrorStatus(5, 409, "Action begun, outcome unknown"),
    "store": ErrorStatus(6, 500, "Storage error"),
    "busy": ErrorStatus(6, 503, "Storage busy"),
    "unsafe_database": ErrorStatus(6, 500, "Unsafe database connection"),
    "schema_version": ErrorStatus(6, 500, "Database schema does not match this sgam"),
    "model": ErrorStatus(7, 503, "Model unavailable"),
    "denied": ErrorStatus(8, 403, "Denied by consent"),
    "lease_lost": ErrorStatus(6, 409, "Extraction lease lost"),
    "scenario_file": ErrorStatus(2, 400, "Unusable scenario file"),
    # Kinds only a network surface raises: the request itself was unusable or unauthorised.
    "malformed": ErrorStatus(2, 400, "Malformed request"),
    "unauthenticated": ErrorStatus(9, 401, "Missing or invalid API key"),
    "forbidden": ErrorStatus(10, 403, "Not allowed for this key"),
    "too_large": ErrorStatus(2, 413, "Request body too large"),
    "response_lost": ErrorStatus(5, 409, "Request acted, response lost"),
    "response_erased": ErrorStatus(4, 410, "Stored response erased"),
    "headers_too_large": ErrorStatus(2, 431, "Request header fields too large"),
    "too_many_sessions": ErrorStatus(11, 429, "Too many open sessions"),
}
UNEXPECTED = ErrorStatus(1, 500, "Internal error")


def status_of(kind: str) -> ErrorStatus:
    return ERROR_STATUSES.get(kind, UNEXPECTED)


def exit_status(error: SgamError) -> int:
    return status_of(error.kind).exit_status


def http_status(error: SgamError) -> int:
    return status_of(error.kind).http_status


def problem(error: SgamError, *, instance: str | None = None) -> dict[str, Any]:
    """An RFC 9457 problem document for ``error``, carrying sgam's ``kind`` (and the
    offending ``field`` when the error names one; ``errors`` lists every field when a
    request broke several rules)."""
    result = status_of(error.kind)
    document: dict[str, Any] = {
        "type": f"urn:sgam:error:{error.kind}",
        "title": result.title,
        "status": result.http_status,
        "detail": error.message,
        "kind": error.kind,
    }
    if error.field is not None:
        document["field"] = error.field
    if isinstance(error, InvalidFields):
        document["errors"] = [{"field": field, "detail": rule} for field, rule in error.problems]
    if instance is not None:
        document["instance"] = instance
    return document
