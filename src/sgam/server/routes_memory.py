"""Routes over search, recall and extraction (remember, held candidates, confirm, reject),
and ``whoami`` for a client to see its key's tenant and scope."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .._core.model import IndexStatus, SubjectName, WriteResult
from ..boundary import recall_json
from ..extraction import Extraction, HeldCandidate, Remembered
from ..search import EvidenceHit
from .auth import Admin, Reader, Writer, memory_of
from .idempotency import IDEMPOTENT, once
from .models import RecallIn, RecallOut, ReembedIn, RememberIn, SearchIn, WhoAmI
from .routes_ledger import episode_url, reply, write_reply

router = APIRouter(prefix="/v1")


@router.get("/whoami", response_model=WhoAmI, tags=["keys"], summary="The tenant and scope of the calling key")
async def whoami(caller: Reader) -> Response:
    return reply({"tenant": caller.tenant, "key_id": caller.key_id, "scope": caller.scope})


@router.post("/search", response_model=list[EvidenceHit], tags=["recall"],
             summary="Episodes that may be evidence for a question")
async def search(body: SearchIn, request: Request, caller: Reader) -> Response:
    hits = await memory_of(request).search(
        caller.tenant, body.question, limit=body.limit, config=body.config, since=body.since, until=body.until,
        session=body.session, speaker=body.speaker, subject=body.subject, memory_type=body.memory_type,
        purpose=body.purpose)
    return reply(hits)


@router.get("/index", response_model=IndexStatus, tags=["recall"],
            summary="Which embedder search uses, and how far the one being built is")
async def index_status(request: Request, caller: Reader) -> Response:
    return reply(await memory_of(request).index_status(caller.tenant))


@router.post("/index", dependencies=[IDEMPOTENT], response_model=IndexStatus, tags=["recall"],
             summary="Build an embedder's vectors beside those search uses, then switch search to them (admin)")
async def reembed(body: ReembedIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).reembed(caller.tenant, body.embedder, batch=body.batch))

    return await once(request, caller, produce)


@router.post("/recall", response_model=RecallOut, tags=["recall"],
             summary="The smallest cited context for a question, fenced as data")
async def recall(body: RecallIn, request: Request, caller: Reader) -> Response:
    result = await memory_of(request).recall(caller.tenant, body.question, at=body.at, known_at=body.known_at,
                                             budget=body.budget, config=body.config, purpose=body.purpose)
    return reply(recall_json(result))


@router.post("/remember", dependencies=[IDEMPOTENT],
             status_code=201, response_model=Remembered, tags=["extraction"],
             summary="Record an episode and extract facts from it (or queue it for the worker)")
async def remember(body: RememberIn, request: Request, caller: Writer) -> Response:
    extract = request.app.state.extract_by_default if body.extract is None else body.extract

    async def produce() -> Response:
        remembered = await memory_of(request).remember(
            caller.tenant, body.id, body.at, body.text, speaker=body.speaker, kind=body.kind,
            session=body.session, metadata=body.metadata, extract=extract, retention=body.retention)
        return reply(remembered, 201, episode_url(remembered.episode.id))

    return await once(request, caller, produce)


@router.get("/extractions", response_model=list[Extraction], tags=["extraction"],
            summary="Extraction records, newest first")
async def extractions(request: Request, caller: Reader, episode: str | None = None, limit: int = 100) -> Response:
    return reply(await memory_of(request).extractions(caller.tenant, episode=episode, limit=limit))


@router.get("/held", response_model=list[HeldCandidate], tags=["extraction"],
            summary="Candidates held back for confirmation (status: open, confirmed, rejected, promoted)")
async def held(request: Request, caller: Reader, status: str = "open", limit: int = 100) -> Response:
    return reply(await memory_of(request).held(caller.tenant, status=status, limit=limit))


@router.post("/held/{held_id}/confirm", dependencies=[IDEMPOTENT],
             response_model=WriteResult | SubjectName, tags=["extraction"],
             summary="Confirm a held candidate: it is written now (about ?subject=, for an ambiguous name); "
                     "an alias proposal (admin: it merges subjects) answers the alias step it recorded")
async def confirm(held_id: int, request: Request, caller: Writer, subject: str | None = None) -> Response:
    async def produce() -> Response:
        done = await memory_of(request).confirm(caller.tenant, held_id, subject=subject,
                                                may_alias=caller.allows("admin"))
        return reply(done, 201) if isinstance(done, SubjectName) else write_reply(done)

    return await once(request, caller, produce)


@router.post("/held/{held_id}/reject", dependencies=[IDEMPOTENT],
             response_model=HeldCandidate, tags=["extraction"],
             summary="Reject a held candidate: it is never written")
async def reject(held_id: int, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).reject(caller.tenant, held_id))

    return await once(request, caller, produce)


