"""Find the document tables that belong to a backend."""

from __future__ import annotations

from .._errors import ValidationError
from ..store import Backend
from ._protocol import DocumentStore


def document_store_for(backend: Backend) -> DocumentStore:
    """Each backend family brings its own SQL; the PostgreSQL one registers here too."""
    from ..store.sqlite import SQLiteBackend

    if isinstance(backend, SQLiteBackend):
        from ..store.sqlite.documents import SQLiteDocuments

        return SQLiteDocuments()
    factory = getattr(backend, "document_store", None)
    if callable(factory):
        store: DocumentStore = factory()
        return store
    raise ValidationError("backend", type(backend).__name__, "has no document tables")
