"""Routes over the ledger: episodes, facts (write, get, history, query), retract,
correct, erasure and the schema. Thin: parse, call ``AsyncMemory``, encode."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from .._core.errors import NotFoundError
from .._core.model import (
    Assertion,
    Backfill,
    Episode,
    ForgetResult,
    Quarantined,
    Reachable,
    SchemaChange,
    SubjectName,
    WriteResult,
)
from .._core.rules import Effect
from .._core.schema import AttributeSchema
from ..boundary import to_json
from .auth import Admin, Reader, Writer, memory_of
from .backfills import status_url, workers_of
from .idempotency import IDEMPOTENT, once
from .models import (
    AliasIn,
    AssertionPage,
    BackfillRun,
    CorrectIn,
    DeclareIn,
    EpisodeIn,
    FactIn,
    RenameIn,
    RetractIn,
    RetypeIn,
    StepAccepted,
    Timestamp,
    UnaliasIn,
)

router = APIRouter(prefix="/v1")
OptionalTime = Annotated[Timestamp | None, Query(description="RFC 3339 timestamp with a zone")]
PurposeQuery = Annotated[str | None, Query(description="That purpose's timeline (falling back to the general one)")]
UseQuery = Annotated[str | None, Query(
    description="The use it is read for: episodes about a subject whose consent is revoked for it are hidden")]


def reply(value: Any, status: int = 200, location: str | None = None) -> JSONResponse:
    """``value`` as JSON; a 201 names where the new resource is read (``location``)."""
    return JSONResponse(to_json(value), status_code=status,
                        headers={"Location": location} if location is not None else None)


def episode_url(episode_id: str) -> str:
    return f"/v1/episodes/{quote(episode_id, safe='/')}"


def write_reply(result: WriteResult) -> JSONResponse:
    """201 when the write put a new assertion in force; 200 when it only corroborated one."""
    return reply(result, 200 if result.effect is Effect.CORROBORATED else 201)


@router.post("/episodes", dependencies=[IDEMPOTENT],
             status_code=201, response_model=Episode, tags=["episodes"],
             summary="Record an episode (re-recording the same content is a no-op)")
async def add_episode(body: EpisodeIn, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        episode = await memory_of(request).add_episode(
            caller.tenant, body.id, body.at, body.text, speaker=body.speaker, kind=body.kind,
            session=body.session, metadata=body.metadata, retention=body.retention,
            derived_from=body.derived_from)
        return reply(episode, 201, episode_url(episode.id))

    return await once(request, caller, produce)


@router.get("/episodes", response_model=list[Episode], tags=["episodes"],
            summary="List episodes (of a session; or those made directly from ``derived_from``)")
async def list_episodes(
    request: Request, caller: Reader, purpose: UseQuery = None, session: str | None = None, limit: int = 100,
    derived_from: str | None = None,
) -> Response:
    memory = memory_of(request)
    if derived_from is not None:
        return reply(await memory.derived_episodes(caller.tenant, derived_from, purpose=purpose))
    return reply(await memory.episodes(caller.tenant, session=session, limit=limit, purpose=purpose))


@router.get("/episodes/{episode_id:path}", response_model=Episode, tags=["episodes"], summary="One episode")
async def get_episode(episode_id: str, request: Request, caller: Reader, purpose: UseQuery = None) -> Response:
    episode = await memory_of(request).episode(caller.tenant, episode_id, purpose=purpose)
    if episode is None:
        raise NotFoundError(f"no episode {episode_id!r}")
    return reply(episode)


@router.delete("/episodes/{episode_id:path}", response_model=ForgetResult, tags=["erasure"],
               summary="Erase an episode and every operation it sourced (admin)")
async def forget_episode(episode_id: str, request: Request, caller: Admin) -> Response:
    return reply(await memory_of(request).forget_episode(caller.tenant, episode_id))


@router.delete("/subjects/{subject:path}", response_model=ForgetResult, tags=["erasure"],
               summary="Erase every assertion of a subject (admin)")
async def forget_subject(subject: str, request: Request, caller: Admin) -> Response:
    return reply(await memory_of(request).forget_subject(caller.tenant, subject))


@router.post("/facts", dependencies=[IDEMPOTENT],
             status_code=201, response_model=WriteResult, tags=["facts"],
             responses={200: {"model": WriteResult, "description": "Corroborated: the same value already held"}},
             summary="Write a fact (201: a new assertion is in force; 200: it corroborated the one holding)")
async def write_fact(body: FactIn, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        return write_reply(await memory_of(request).write(
            caller.tenant, body.subject, body.attribute, body.value, body.valid_from, body.source,
            memory_type=body.memory_type, confidence=body.confidence, purpose=body.purpose,
            expires_at=body.expires_at))

    return await once(request, caller, produce)


@router.get("/facts", response_model=AssertionPage, tags=["facts"],
            summary="Query assertions, one page at a time (opaque cursors)")
async def query_facts(
    request: Request, caller: Reader, subject: str | None = None, attribute: str | None = None,
    memory_type: str | None = None, at: OptionalTime = None, known_at: OptionalTime = None,
    all_times: bool = False, limit: int = 100, cursor: str | None = None, purpose: PurposeQuery = None,
) -> Response:
    page = await memory_of(request).query(
        caller.tenant, subject=subject, attribute=attribute, memory_type=memory_type, at=at,
        known_at=known_at, all_times=all_times, limit=limit, cursor=cursor, purpose=purpose)
    return reply({"items": list(page), "next_cursor": page.next_cursor})


@router.get("/facts/{subject}/{attribute}", response_model=Assertion | list[Assertion], tags=["facts"],
            summary="The assertion holding at `at` as known at `known_at` (404 when none); of a set "
                    "(cardinality many), the list of its members holding")
async def get_fact(subject: str, attribute: str, request: Request, caller: Reader,
                   at: OptionalTime = None, known_at: OptionalTime = None, purpose: PurposeQuery = None) -> Response:
    found = await memory_of(request).lookup(caller.tenant, subject, attribute, at=at, known_at=known_at,
                                            purpose=purpose)
    if found is None:
        raise NotFoundError(f"nothing holds for {subject!r}.{attribute!r} then")
    return reply(found)


@router.get("/facts/{subject}/{attribute}/history", response_model=list[Assertion], tags=["facts"],
            summary="Every assertion of a key as known at `known_at`, by valid_from")
async def fact_history(subject: str, attribute: str, request: Request, caller: Reader,
                       known_at: OptionalTime = None, purpose: PurposeQuery = None) -> Response:
    return reply(await memory_of(request).history(caller.tenant, subject, attribute, known_at=known_at,
                                                  purpose=purpose))


@router.get("/facts/{subject}/{attribute}/members", response_model=list[Assertion], tags=["facts"],
            summary="The members of a set (cardinality many) holding at `at` as known at `known_at`")
async def set_members(subject: str, attribute: str, request: Request, caller: Reader,
                      at: OptionalTime = None, known_at: OptionalTime = None,
                      purpose: PurposeQuery = None) -> Response:
    return reply(await memory_of(request).members(caller.tenant, subject, attribute, at=at, known_at=known_at,
                                                  purpose=purpose))


@router.get("/linked/{attribute}/{to:path}", response_model=list[str], tags=["relations"],
            summary="Every subject whose relation `attribute` names `to` at `at` as known at `known_at`")
async def linked(attribute: str, to: str, request: Request, caller: Reader, at: OptionalTime = None,
                 known_at: OptionalTime = None, limit: int = 1000) -> Response:
    return reply(await memory_of(request).linked(caller.tenant, attribute, to, at=at, known_at=known_at,
                                                 limit=limit))


@router.get("/reachable/{start:path}", response_model=Reachable, tags=["relations"],
            summary="Every subject reached from `start` along the relations `attribute` within `depth` steps")
async def reachable(start: str, request: Request, caller: Reader,
                    attribute: Annotated[list[str], Query(description="A relation to follow (repeat for several)")],
                    depth: int = 1, fan_out: int = 1000, at: OptionalTime = None,
                    known_at: OptionalTime = None) -> Response:
    return reply(await memory_of(request).reachable(caller.tenant, start, attribute, depth=depth, at=at,
                                                    known_at=known_at, fan_out=fan_out))


@router.post("/aliases", dependencies=[IDEMPOTENT], status_code=201, response_model=SubjectName, tags=["subjects"],
             summary="From now on `name` is another name of `subject`; a name with facts of its own merges "
                     "(admin key: a merge changes what every read of both names answers)")
async def alias(body: AliasIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).alias(caller.tenant, body.name, body.subject,
                                                    decided_by=f"key:{caller.key_id}"), 201)

    return await once(request, caller, produce)


@router.post("/unalias", dependencies=[IDEMPOTENT], response_model=SubjectName, tags=["subjects"],
             summary="From now on `name` is its own subject again, with the facts that named it (admin key)")
async def unalias(body: UnaliasIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).unalias(caller.tenant, body.name))

    return await once(request, caller, produce)


@router.get("/names/{subject:path}", response_model=list[SubjectName], tags=["subjects"],
            summary="A subject's page of names: every alias step that joined a name to it, in force or ended")
async def subject_names(subject: str, request: Request, caller: Reader) -> Response:
    return reply(await memory_of(request).names(caller.tenant, subject))


@router.post("/retract", dependencies=[IDEMPOTENT],
             response_model=WriteResult, tags=["facts"],
             summary="Say the value holding at `at` stopped holding then")
async def retract(body: RetractIn, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).retract(caller.tenant, body.subject, body.attribute, body.at,
                                                      body.source, purpose=body.purpose, value=body.value))

    return await once(request, caller, produce)


@router.post("/correct", dependencies=[IDEMPOTENT],
             response_model=WriteResult, tags=["facts"],
             summary="Replace the value of the assertion starting at `valid_from`")
async def correct(body: CorrectIn, request: Request, caller: Writer) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).correct(
            caller.tenant, body.subject, body.attribute, body.valid_from, body.value, body.source,
            confidence=body.confidence, purpose=body.purpose))

    return await once(request, caller, produce)


ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {"model": StepAccepted, "description": "Recorded; its backfill goes on in the server"}}


@router.post("/schema/rename", dependencies=[IDEMPOTENT], status_code=201, response_model=SchemaChange,
             responses=ACCEPTED, tags=["schema"],
             summary="From now on `attribute` is called `to`, its history too (admin)")
async def rename_attribute(body: RenameIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return await _recorded(request, caller.tenant, await memory_of(request).rename_attribute(
            caller.tenant, body.attribute, body.to, decided_by=f"key:{caller.key_id}", backfill=body.backfill,
            wait=False))

    return await once(request, caller, produce)


@router.post("/schema/retype", dependencies=[IDEMPOTENT], status_code=201, response_model=SchemaChange,
             responses=ACCEPTED, tags=["schema"],
             summary="Declare a new value type and convert every value it ever held (admin)")
async def retype(body: RetypeIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        pairs = None if body.map is None else [list(pair) for pair in body.map]
        return await _recorded(request, caller.tenant, await memory_of(request).retype(
            caller.tenant, body.attribute, body.value_type, map=pairs, quarantine=body.quarantine,
            decided_by=f"key:{caller.key_id}", backfill=body.backfill, wait=False))

    return await once(request, caller, produce)


async def _recorded(request: Request, tenant: str, change: SchemaChange) -> JSONResponse:
    """201 with the step when it converted in the transaction that recorded it; 202 with
    its backfill, started in a server worker, and where to watch it otherwise."""
    found = [b for b in await memory_of(request).backfills(tenant) if b.step == change.seq and not b.finished]
    if not found:
        return reply(change, 201)
    workers_of(request).start(tenant, change.seq)
    url = status_url(found[0])
    return reply({"change": change, "backfill": found[0], "status": url}, 202, location=url)


@router.get("/schema/quarantine", response_model=list[Quarantined], tags=["schema"],
            summary="The values retypes set aside: no conversion to the new type")
async def quarantined(request: Request, caller: Reader, attribute: str | None = None) -> Response:
    return reply(await memory_of(request).quarantined(caller.tenant, attribute))


@router.get("/schema/history", response_model=list[SchemaChange], tags=["schema"],
            summary="Every schema migration step: what, when, by whose decision, from which file")
async def schema_history(request: Request, caller: Reader) -> Response:
    return reply(await memory_of(request).schema_history(caller.tenant))


@router.get("/schema/backfills", response_model=list[Backfill], tags=["schema"],
            summary="How far each migration step's backfill is: subjects done of all, batches")
async def backfills(request: Request, caller: Reader) -> Response:
    return reply(await memory_of(request).backfills(caller.tenant))


@router.get("/schema/backfills/{step}", response_model=BackfillRun, tags=["schema"],
            summary="How far the backfill of migration step `step` is, and whether this server runs it")
async def backfill(step: int, request: Request, caller: Reader) -> Response:
    found = await memory_of(request).backfill(caller.tenant, step)
    return reply({"backfill": found, "running": workers_of(request).running(caller.tenant, step), "started": False})


@router.post("/schema/backfills/{step}/run", dependencies=[IDEMPOTENT], status_code=202, response_model=BackfillRun,
             responses={200: {"model": BackfillRun, "description": "Finished already: nothing to run"}},
             tags=["schema"], summary="Resume an unfinished backfill in the server, unless it runs already (admin)")
async def run_backfill(step: int, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        found = await memory_of(request).backfill(caller.tenant, step)
        if found.finished:
            return reply({"backfill": found, "running": False, "started": False})
        workers = workers_of(request)
        started = workers.start(caller.tenant, step)
        return reply({"backfill": found, "running": workers.running(caller.tenant, step), "started": started}, 202,
                     location=status_url(found))

    return await once(request, caller, produce)


@router.post("/schema/attributes", dependencies=[IDEMPOTENT],
             status_code=201, response_model=AttributeSchema, tags=["schema"],
             summary="Declare an attribute's value type (admin)")
async def declare(body: DeclareIn, request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).declare(
            caller.tenant, body.attribute, body.value_type, memory_type=body.memory_type,
            sensitive=body.sensitive, description=body.description, cardinality=body.cardinality), 201)

    return await once(request, caller, produce)
