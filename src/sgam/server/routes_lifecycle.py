"""Routes over the lifecycle: retention classes, consent, purge, the audit log and the
residue probe. The tenant is the key's; purge and residue need an admin key, declaring a
class too (it moves every deadline of the class); consent needs a write key."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from .._core.model import AuditEntry, ConsentState, PurgeResult, Residue
from .._core.retention import RetentionClass
from . import downloads
from .auth import Admin, Reader, Writer, memory_of
from .idempotency import IDEMPOTENT, once
from .models import ConsentedOut, ConsentIn, ResidueIn, RetentionClassOut, RetentionIn, RetentionReportOut
from .routes_ledger import reply

router = APIRouter(prefix="/v1")


def class_out(found: RetentionClass) -> RetentionClassOut:
    return RetentionClassOut(name=found.name, ttl=found.ttl_iso, on_expiry=found.on_expiry,
                             declared_at=found.declared_at)


@router.get("/retention", response_model=list[RetentionClassOut], tags=["lifecycle"],
            summary="The tenant's retention classes (default included even if never declared)")
async def retention_classes(request: Request, caller: Reader) -> Response:
    return reply([class_out(c) for c in await memory_of(request).retention_classes(caller.tenant)])


@router.get("/retention/report", response_model=RetentionReportOut, tags=["lifecycle"],
            summary="What each class holds and when the next deadlines fall")
async def retention_report(request: Request, caller: Reader,
                           deadlines: Annotated[int, Query(description="How many next deadlines")] = 10) -> Response:
    return reply(await memory_of(request).retention_report(caller.tenant, deadlines=deadlines))


@router.put("/retention/{name}", response_model=RetentionClassOut, tags=["lifecycle"],
            summary="Declare or redeclare a retention class (admin; moves every deadline of the class)")
async def retention(name: str, body: RetentionIn, request: Request, caller: Admin) -> Response:
    found = await memory_of(request).retention(caller.tenant, name, body.ttl, on_expiry=body.on_expiry)
    return reply(class_out(found))


@router.get("/consent", response_model=list[ConsentState], tags=["lifecycle"],
            summary="The latest consent statement per subject and purpose (subjects with none consent)")
async def consents(request: Request, caller: Reader, subject: str | None = None) -> Response:
    return reply(await memory_of(request).consents(caller.tenant, subject=subject))


@router.get("/consent/{subject:path}", response_model=ConsentedOut, tags=["lifecycle"],
            summary="Whether memory about the subject may be used now (for a purpose)")
async def consented(subject: str, request: Request, caller: Reader, purpose: str | None = None) -> Response:
    allowed = await memory_of(request).consented(caller.tenant, subject, purpose=purpose)
    return reply({"subject": subject, "purpose": purpose, "consented": allowed})


@router.put("/consent/{subject:path}", response_model=ConsentState, tags=["lifecycle"],
            summary="Grant or revoke, from now on, the use of memory about a subject")
async def consent(subject: str, body: ConsentIn, request: Request, caller: Writer) -> Response:
    return reply(await memory_of(request).consent(caller.tenant, subject, body.granted, purpose=body.purpose))


@router.post("/purge", dependencies=[IDEMPOTENT],
             response_model=PurgeResult, tags=["lifecycle"],
             summary="Erase everything of the tenant past its deadline, then the physical residue (admin)")
async def purge(request: Request, caller: Admin) -> Response:
    async def produce() -> Response:
        return reply(await memory_of(request).purge(caller.tenant))

    return await once(request, caller, produce)


@router.get("/audit", response_model=list[AuditEntry], tags=["lifecycle"],
            summary="Erasures, expiries and consent changes, newest first (counts and keyed digests only)")
async def audit(request: Request, caller: Reader, limit: int = 100) -> Response:
    return reply(await memory_of(request).audit(caller.tenant, limit=limit))


@router.post("/residue", response_model=Residue, tags=["lifecycle"],
             summary="Where a text still appears in the tenant's store (admin): proof an erasure left nothing")
async def residue(body: ResidueIn, request: Request, caller: Admin) -> Response:
    return reply(await memory_of(request).residue(caller.tenant, body.text))


@router.post("/subjects/{subject:path}/export", tags=["lifecycle"], response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {"schema": {
                "type": "string", "description": "JSON lines: docs/portability.md, docs/portability.schema.json"}}}}},
            summary="Everything held about one subject, in the export format (admin; a POST, as an admin read "
                    "is): an access request's answer")
async def subject_export(subject: str, request: Request, caller: Admin) -> Response:
    return await downloads.subject_export(memory_of(request), caller.tenant, subject)
