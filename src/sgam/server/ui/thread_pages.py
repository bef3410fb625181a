"""The inspector's checkpoint pages: the tenant's threads, and one thread's checkpoints in
order (time travel: newest first, each with its parent), the writes pending on each and
what the run waits for. Read-only; installed where LangGraph is (the pages rebuild
checkpoints with it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ...access import Principal
from ...langgraph import threads as view
from ...memory.facade import Memory
from .pages import _guarded, _memory, _page
from .sessions import Session

router = APIRouter(prefix="/ui", include_in_schema=False)


@router.get("/threads", response_class=HTMLResponse)
async def threads_page(request: Request) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        found = await _memory(request).call(view.list_threads, principal.tenant, 1000)
        return _page(request, "threads.html", session, principal, threads=found)

    return await _guarded(request, "read", render)


def _thread(memory: Memory, tenant: str, thread_id: str) -> dict[str, Any]:
    """The thread's view, and the display names of the subjects it is about."""
    detail = view.show_thread(memory, tenant, thread_id, 200)
    return {"detail": detail, "labels": memory.display_names(tenant, detail.subjects)}


@router.get("/threads/{thread_id:path}", response_class=HTMLResponse)
async def thread_page(request: Request, thread_id: str) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_thread, principal.tenant, thread_id)
        return _page(request, "thread.html", session, principal, **data)

    return await _guarded(request, "read", render)
