"""The inspector's lifecycle page: retention classes with what they hold and their next
deadlines, and consent per subject, which a write key can grant or revoke (CSRF-checked,
like every form). Nothing here shows content: the report and the consent book hold none."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..._core.errors import ValidationError
from ...access import Principal
from ...memory.facade import Memory
from .pages import _checked_csrf, _guarded, _memory, _page, _sessions
from .sessions import Session

router = APIRouter(prefix="/ui", include_in_schema=False)
DEADLINES = 20


def _lifecycle(memory: Memory, tenant: str) -> dict[str, Any]:
    report = memory.retention_report(tenant, deadlines=DEADLINES)
    declared = {c.name: c for c in memory.retention_classes(tenant)}
    by_subject: dict[str, list[Any]] = {}
    for state in memory.consents(tenant):
        by_subject.setdefault(state.subject, []).append(state)
    return {"classes": report["classes"], "deadlines": report["next_deadlines"], "now": report["now"],
            "declared": declared, "consents": sorted(by_subject.items())}


@router.get("/lifecycle", response_class=HTMLResponse)
async def lifecycle_page(request: Request) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_lifecycle, principal.tenant)
        flash = _sessions(request).take_flash(session.id)
        return _page(request, "lifecycle.html", session, principal, flash=flash, **data)

    return await _guarded(request, "read", render)


@router.post("/consent")
async def consent(request: Request, subject: str = Form(""), purpose: str = Form(""), decision: str = Form(""),
                  csrf: str = Form("")) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        _checked_csrf(session, csrf)
        if decision not in ("grant", "revoke"):
            raise ValidationError("decision", decision, "must be grant or revoke")
        # As typed: a consent statement is about exactly the subject named.
        state = await _memory(request).consent(principal.tenant, subject, decision == "grant",
                                               purpose=purpose or None)
        scope = "every purpose" if state.purpose is None else f"purpose {state.purpose!r}"
        _sessions(request).flash(
            session.id, f"Consent for {state.subject!r} {'granted' if state.granted else 'revoked'} for {scope}.")
        return RedirectResponse("/ui/lifecycle", status_code=303)

    return await _guarded(request, "write", render)
