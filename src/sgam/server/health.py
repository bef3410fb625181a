"""``GET /v1/health``: for a load balancer or a supervisor, the one route without a key.

It says only that the process answers requests: no version, no tenant, no store
details, nothing a caller without a key should learn.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

router = APIRouter(prefix="/v1")


class HealthOut(BaseModel):
    status: Literal["ok"]


@router.get("/health", response_model=HealthOut, tags=["health"], summary="The server answers (no key needed)")
async def health() -> HealthOut:
    return HealthOut(status="ok")
