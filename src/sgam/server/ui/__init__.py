"""The web inspector: see a key's timeline and sources, review held candidates, erase
with a preview, retention classes and consent, documents and their revisions.
Server-rendered HTML under ``/ui``; everything it needs ships here."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from . import document_pages, lifecycle_pages, pages


def install(app: FastAPI) -> None:
    app.include_router(pages.router)
    app.include_router(lifecycle_pages.router)
    app.include_router(document_pages.router)
    app.mount("/ui/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="ui-static")


__all__ = ["install"]
