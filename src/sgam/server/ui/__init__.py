"""The web inspector: see a key's timeline and sources, review held candidates, erase
with a preview. Server-rendered HTML under ``/ui``; everything it needs ships here."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .pages import router


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/ui/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="ui-static")


__all__ = ["install"]
