"""Routes over document memory: a tenant's files under /memories with revisions, one route
per memory-tool command (view as ``file`` and ``listing``, create, str_replace, insert,
delete, rename), the revision history, diffs, restore and search; and ``tool``, which runs
one memory-tool command as the model would and returns the text the model would see.

Paths travel in the query string or the body, never in the URL path: they contain slashes,
and a document may be named like any suffix a route could have. Reads need a read key,
changes a write key (every change is a revision; history keeps the old text), ``erase``
(every revision gone, as if never written) an admin key. Revisions name the API key that
wrote them as their author."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ..access import Principal
from ..documents import Document, DocumentHit, Documents, Entry, Provenance, Revision
from ..memory.facade import Memory
from ..tools import MemoryTool
from .auth import Admin, Reader, Writer, memory_of
from .idempotency import IDEMPOTENT, once
from .models_documents import (
    CreateIn,
    DeletedOut,
    DeleteIn,
    DiffOut,
    DocumentSearchIn,
    EditOut,
    ErasedOut,
    EraseIn,
    InsertIn,
    MovedOut,
    RenameIn,
    RestoreIn,
    StrReplaceIn,
    ToolIn,
    ToolOut,
    WriteIn,
)
from .openapi import document_operation_id
from .routes_ledger import reply

router = APIRouter(prefix="/v1/documents", tags=["documents"], generate_unique_id_function=document_operation_id)
PathQuery = Annotated[str, Query(description="A path under /memories")]
R = TypeVar("R")


def author(caller: Principal) -> Provenance:
    return Provenance(f"api-key:{caller.key_id}")


async def on_documents(request: Request, work: Callable[[Documents], R]) -> R:
    """Run ``work`` on the store's documents on a worker thread (never on the loop)."""

    def call(memory: Memory) -> R:
        return work(memory.documents)

    return await memory_of(request).call(call)


@router.get("/listing", response_model=list[Entry], summary="Files and directories below a path (view of a directory)")
async def listing(request: Request, caller: Reader, path: PathQuery = "/memories",
                  depth: Annotated[int, Query(ge=1, le=16)] = 2) -> Response:
    return reply(await on_documents(request, lambda d: d.listing(caller.tenant, path, depth)))


@router.get("/file", response_model=Document, summary="A document's current text and revision (view of a file)")
async def file(request: Request, caller: Reader, path: PathQuery) -> Response:
    return reply(await on_documents(request, lambda d: d.read(caller.tenant, path)))


@router.get("/history", response_model=list[Revision], summary="Every revision of a document, oldest first")
async def history(request: Request, caller: Reader, path: PathQuery) -> Response:
    return reply(await on_documents(request, lambda d: d.history(caller.tenant, path)))


@router.get("/revision", response_model=Revision, summary="One revision of a document")
async def revision(request: Request, caller: Reader, path: PathQuery, revision: int) -> Response:
    return reply(await on_documents(request, lambda d: d.revision(caller.tenant, path, revision)))


@router.get("/diff", response_model=DiffOut, summary="A unified diff between two revisions (new: the latest)")
async def diff(request: Request, caller: Reader, path: PathQuery, old: int, new: int | None = None) -> Response:
    return reply({"diff": await on_documents(request, lambda d: d.diff(caller.tenant, path, old, new))})


@router.post("/search", response_model=list[DocumentHit], summary="Passages of documents, citing path and lines")
async def search(body: DocumentSearchIn, request: Request, caller: Reader) -> Response:
    return reply(await on_documents(request, lambda d: d.search(caller.tenant, body.query, limit=body.limit)))


async def change(request: Request, caller: Principal, work: Callable[[Documents], Any]) -> Response:
    async def produce() -> Response:
        return reply(await on_documents(request, work))

    return await once(request, caller, produce)


@router.post("/create", dependencies=[IDEMPOTENT],
             status_code=201, response_model=Document, summary="A new document (409 if the path exists)")
async def create(body: CreateIn, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        document: Document = await on_documents(request, lambda d: d.create(
            caller.tenant, body.path, body.file_text, by=author(caller), source=body.source,
            retention=body.retention))
        return reply(document, 201, f"/v1/documents/file?{urlencode({'path': document.path})}")

    return await once(request, caller, produce)


@router.post("/write", dependencies=[IDEMPOTENT],
             response_model=Document, summary="Set a document's whole text, creating it if needed")
async def write(body: WriteIn, request: Request, caller: Writer) -> Response:
    return await change(request, caller, lambda d: d.write(
        caller.tenant, body.path, body.file_text, expected_revision=body.expected_revision, by=author(caller)))


@router.post("/str_replace", dependencies=[IDEMPOTENT],
             response_model=EditOut, summary="Replace text that occurs exactly once")
async def str_replace(body: StrReplaceIn, request: Request, caller: Writer) -> Response:
    def work(d: Documents) -> dict[str, Any]:
        edit = d.str_replace(caller.tenant, body.path, body.old_str, body.new_str,
                             expected_revision=body.expected_revision, by=author(caller))
        return {"document": edit.document, "line": edit.line + 1}

    return await change(request, caller, work)


@router.post("/insert", dependencies=[IDEMPOTENT],
             response_model=Document, summary="Insert text after a line (0: at the top)")
async def insert(body: InsertIn, request: Request, caller: Writer) -> Response:
    return await change(request, caller, lambda d: d.insert(
        caller.tenant, body.path, body.insert_line, body.insert_text, expected_revision=body.expected_revision,
        by=author(caller)))


@router.post("/delete", dependencies=[IDEMPOTENT],
             response_model=DeletedOut, summary="Delete a document or a directory (history keeps them)")
async def delete(body: DeleteIn, request: Request, caller: Writer) -> Response:
    return await change(request, caller, lambda d: {"deleted": d.delete(
        caller.tenant, body.path, expected_revision=body.expected_revision, by=author(caller))})


@router.post("/rename", dependencies=[IDEMPOTENT],
             response_model=MovedOut, summary="Move a document or a directory")
async def rename(body: RenameIn, request: Request, caller: Writer) -> Response:
    return await change(request, caller, lambda d: {"moved": d.rename(
        caller.tenant, body.old_path, body.new_path, expected_revision=body.expected_revision, by=author(caller))})


@router.post("/restore", dependencies=[IDEMPOTENT],
             response_model=Document, summary="Make an earlier revision's text current (a new revision)")
async def restore(body: RestoreIn, request: Request, caller: Writer) -> Response:
    return await change(request, caller, lambda d: d.restore(
        caller.tenant, body.path, body.revision, expected_revision=body.expected_revision, by=author(caller)))


@router.post("/erase", dependencies=[IDEMPOTENT],
             response_model=ErasedOut, summary="Erase a document and every revision of it (admin)")
async def erase(body: EraseIn, request: Request, caller: Admin) -> Response:
    return await change(request, caller, lambda d: {"revisions_removed": d.erase(caller.tenant, body.path)})


@router.post("/tool", dependencies=[IDEMPOTENT],
             response_model=ToolOut,
             summary="Run one memory-tool command; the text is what a model sees (view: read key; others: write)")
async def tool(body: ToolIn, request: Request, caller: Reader) -> Response:
    if body.command != "view":
        caller.require("write")
    command = body.model_dump(exclude_none=True)

    def call(memory: Memory) -> Any:
        return MemoryTool(memory, caller.tenant, author=f"api-key:{caller.key_id}").run(command)

    async def produce() -> Response:
        return reply(await memory_of(request).call(call))

    return await once(request, caller, produce)
