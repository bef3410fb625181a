"""The inspector's schema page: each attribute as declared now (type, cardinality, what an
old name was renamed to), the history of migration steps that shaped it, how far their
backfills are, where re-embedding stands, and what retypes set aside. Reading it needs a
read key; migrations are run from files (``sgam schema apply``) or the API, not from
this page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...access import Principal
from ...memory.facade import Memory
from .pages import _guarded, _memory, _page
from .sessions import Session

router = APIRouter(prefix="/ui", include_in_schema=False)


def _schema(memory: Memory, tenant: str) -> dict[str, Any]:
    attributes, types = memory.schema(tenant)
    history = memory.schema_history(tenant)
    by_attribute: dict[str, list[Any]] = {}
    for change in history:
        by_attribute.setdefault(change.attribute, []).append(change)
        if change.kind == "rename":
            by_attribute.setdefault(str(change.detail["to"]), []).append(change)
    return {"attributes": attributes, "memory_types": types, "history": history, "by_attribute": by_attribute,
            "quarantined": memory.quarantined(tenant), "backfills": memory.backfills(tenant),
            "index": memory.index_status(tenant)}


@router.get("/schema", response_class=HTMLResponse)
async def schema_page(request: Request) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_schema, principal.tenant)
        return _page(request, "schema.html", session, principal, **data)

    return await _guarded(request, "read", render)
