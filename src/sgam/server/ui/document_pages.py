"""The inspector's document pages: the tenant's files under /memories, and one document
with its revisions (who wrote each, from which episode or tool call) and a diff between
any two of them. Read-only: documents change through the API, the CLI or the memory tool."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ..._core.errors import NotFoundError
from ...access import Principal
from ...memory.facade import Memory
from .pages import _guarded, _memory, _page
from .sessions import Session

router = APIRouter(prefix="/ui", include_in_schema=False)


def _documents(memory: Memory, tenant: str) -> dict[str, Any]:
    return {"documents": sorted(memory.documents.all(tenant), key=lambda d: d.path)}


@router.get("/documents", response_class=HTMLResponse)
async def documents_page(request: Request) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_documents, principal.tenant)
        return _page(request, "documents.html", session, principal, **data)

    return await _guarded(request, "read", render)


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """A unified diff as (kind, line) for the template: add, del, hunk, file or same."""
    lines: list[tuple[str, str]] = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        lines.append((kind, line))
    return lines


def _document(memory: Memory, tenant: str, path: str, old: int | None, new: int | None) -> dict[str, Any]:
    docs = memory.documents
    history = docs.history(tenant, path)
    numbers = [r.revision for r in history]
    newest = new if new is not None else numbers[-1]
    oldest = old if old is not None else (numbers[-2] if len(numbers) > 1 else numbers[-1])
    for number, field in ((oldest, "old"), (newest, "new")):
        if number not in numbers:
            raise NotFoundError(f"{path} has no revision {number}", field=field, value=number)
    return {"path": history[-1].path, "document": docs.get(tenant, path), "history": list(reversed(history)),
            "old": oldest, "new": newest, "diff": diff_lines(docs.diff(tenant, path, oldest, newest))}


@router.get("/documents/file", response_class=HTMLResponse)
async def document_page(request: Request, path: str = "", old: int | None = None,
                        new: int | None = None) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_document, principal.tenant, path, old, new)
        return _page(request, "document.html", session, principal, **data)

    return await _guarded(request, "read", render)
