"""The web inspector: see a key's timeline and sources, a subject with its sets, relations
and neighbourhood, review held candidates, erase with a preview, retention classes and
consent, documents and their revisions, checkpoint threads.
Server-rendered HTML under ``/ui``; everything it needs ships here."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from ..limits import SessionLimits
from . import document_pages, lifecycle_pages, pages, schema_pages, subject_pages
from .sessions import Sessions


def _include_threads(app: FastAPI) -> bool:
    """The checkpoint pages, where LangGraph is installed (they rebuild checkpoints with it)."""
    try:
        from . import thread_pages
    except ImportError:
        return False
    app.include_router(thread_pages.router)
    return True


def install(app: FastAPI, limits: SessionLimits) -> None:
    app.state.inspector_sessions = Sessions(limits)
    app.include_router(pages.router)
    app.include_router(subject_pages.router)
    app.include_router(lifecycle_pages.router)
    app.include_router(schema_pages.router)
    app.include_router(document_pages.router)
    app.state.inspector_threads = _include_threads(app)
    app.mount("/ui/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="ui-static")


__all__ = ["install"]
