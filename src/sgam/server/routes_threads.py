"""Routes over checkpoint memory (``SgamSaver``): where each run of the tenant stopped and
what it waits for (read keys), pruning a thread's history and erasing a thread (admin).
Installed only where LangGraph is (``sgam[langgraph]``): the views rebuild checkpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from .._core.model import ForgetResult
from ..langgraph import SgamSaver
from ..langgraph import threads as view
from ..langgraph.threads import ThreadDetail, ThreadSummary
from ..memory.facade import Memory
from .auth import Admin, Reader, memory_of
from .idempotency import IDEMPOTENT, once
from .routes_ledger import reply

router = APIRouter(prefix="/v1")


@router.get("/threads", response_model=list[ThreadSummary], tags=["threads"],
            summary="The tenant's checkpoint threads: retention class, checkpoints, first and last")
async def list_threads(request: Request, caller: Reader,
                  limit: Annotated[int, Query(ge=1, le=10_000, description="At most this many threads")] = 100,
                  ) -> Response:
    return reply(await memory_of(request).call(view.list_threads, caller.tenant, limit))


@router.get("/threads/{thread_id}", response_model=ThreadDetail, tags=["threads"],
            summary="A thread's checkpoints newest first, their pending writes and what the run waits for")
async def show_thread(thread_id: str, request: Request, caller: Reader,
                 limit: Annotated[int, Query(ge=1, le=1000, description="At most this many checkpoints")] = 20,
                 ) -> Response:
    return reply(await memory_of(request).call(view.show_thread, caller.tenant, thread_id, limit))


@router.post("/threads/{thread_id}/prune", dependencies=[IDEMPOTENT], response_model=ThreadSummary, tags=["threads"],
             summary="Prune a thread to its newest checkpoint per namespace (the run stays resumable; admin)")
async def prune_thread(thread_id: str, request: Request, caller: Admin) -> Response:
    def work(memory: Memory) -> ThreadSummary:
        saver = SgamSaver(memory, tenant=caller.tenant)
        view.thread_summary(saver, thread_id)
        saver.prune([thread_id])
        return view.thread_summary(saver, thread_id)

    async def produce() -> Response:
        return reply(await memory_of(request).call(work))

    return await once(request, caller, produce)


@router.delete("/threads/{thread_id}", response_model=ForgetResult, tags=["threads"],
               summary="Erase a thread whole: every checkpoint and pending write (admin; audited without content)")
async def forget_thread(thread_id: str, request: Request, caller: Admin) -> Response:
    return reply(await memory_of(request).call(lambda memory: SgamSaver(memory, tenant=caller.tenant)
                                               .forget_thread(thread_id)))
