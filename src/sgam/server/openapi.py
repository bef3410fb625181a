"""The API's OpenAPI description: readable operation ids, and per route only the error
statuses it can answer, each an RFC 9457 problem document under ``application/problem+json``.

A client generated from the description names its methods after the operation ids
(the route function's name; document routes ``document_…``), and handles the errors a
call can really produce. What each route can answer follows from what it does: every
route needs a key (401) and may find the store busy (503); parameters can be invalid
(422); a JSON body can be malformed (400) or too large (413); a write key or an admin
key is needed (403, also a subject whose consent is revoked); an id is looked up (404);
stored state or an ``Idempotency-Key`` in flight refuses it (409).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from .models import ProblemOut
from .problems import PROBLEM_JSON

DESCRIPTIONS = {
    400: "Malformed request: the body is not JSON (or not UTF-8)",
    401: "Missing or invalid API key",
    403: "The key's scope is too low, or consent for the subject is revoked",
    404: "Not found",
    409: "Conflict with stored state, or the same Idempotency-Key still in flight",
    413: "Body too large",
    422: "Invalid input: every wrong field is named",
    503: "Store busy, or the extraction model unavailable",
}
KEYED = (401, 503)
QUERY = (*KEYED, 422)
BODY = (*QUERY, 400, 413)
LOOKUP = (*QUERY, 404)
CHANGE = (*BODY, 403, 404, 409)
SCOPED = (*QUERY, 403)

STATUSES: dict[str, tuple[int, ...]] = {
    "whoami": KEYED,
    "add_episode": CHANGE, "list_episodes": LOOKUP, "get_episode": LOOKUP,
    "forget_episode": (*SCOPED, 404), "forget_subject": SCOPED,
    "write_fact": CHANGE, "query_facts": QUERY, "get_fact": LOOKUP, "fact_history": QUERY,
    "set_members": QUERY, "linked": QUERY, "reachable": QUERY,
    "alias": CHANGE, "unalias": CHANGE, "subject_names": QUERY,
    "rename_attribute": CHANGE, "retype": CHANGE, "quarantined": QUERY, "schema_history": KEYED,
    "backfills": KEYED, "backfill": LOOKUP, "run_backfill": (*SCOPED, 404),
    "retract": CHANGE, "correct": CHANGE, "declare": (*BODY, 403, 409),
    "search": BODY, "recall": BODY, "remember": CHANGE, "index_status": KEYED, "reembed": (*BODY, 403, 409),
    "extractions": QUERY, "held": QUERY, "confirm": (*SCOPED, 404, 409), "reject": (*SCOPED, 404, 409),
    "retention_classes": KEYED, "retention_report": QUERY, "retention": (*BODY, 403),
    "consents": QUERY, "consented": QUERY, "consent": (*BODY, 403),
    "purge": (*SCOPED, 409), "audit": QUERY, "residue": (*BODY, 403), "subject_export": SCOPED,
    "document_listing": LOOKUP, "document_file": LOOKUP, "document_history": LOOKUP,
    "document_revision": LOOKUP, "document_diff": LOOKUP, "document_search": BODY,
    "document_create": CHANGE, "document_write": CHANGE, "document_str_replace": CHANGE,
    "document_insert": CHANGE, "document_delete": CHANGE, "document_rename": CHANGE,
    "document_restore": CHANGE, "document_erase": (*BODY, 403, 404), "document_tool": (*BODY, 403, 409),
    "list_threads": QUERY, "show_thread": LOOKUP, "prune_thread": (*SCOPED, 404, 409),
    "forget_thread": (*SCOPED, 404),
    "health": (),
}


def operation_id(route: APIRoute) -> str:
    return route.name


def document_operation_id(route: APIRoute) -> str:
    return f"document_{route.name}"


def _problem(status: int) -> dict[str, Any]:
    return {"description": DESCRIPTIONS[status],
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/ProblemOut"}}}}


def describe(app: FastAPI) -> None:
    """Make ``app.openapi()`` answer the description above (built once, then cached)."""
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schemas = spec.setdefault("components", {}).setdefault("schemas", {})
            problem = ProblemOut.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(problem.pop("$defs", {}))
            schemas["ProblemOut"] = problem
            schemas.pop("HTTPValidationError", None)
            schemas.pop("ValidationError", None)
            for operations in spec.get("paths", {}).values():
                for operation in operations.values():
                    responses = operation["responses"]
                    for status in [s for s in responses if s.isdigit() and int(s) >= 400]:
                        del responses[status]
                    for status in STATUSES[operation["operationId"]]:
                        responses[str(status)] = _problem(status)
                    operation["responses"] = dict(sorted(responses.items()))
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
