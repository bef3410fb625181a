"""Find the search index that belongs to a backend."""

from __future__ import annotations

from .._errors import ValidationError
from ..store import Backend
from ._protocol import SearchIndex


def search_index_for(backend: Backend) -> SearchIndex:
    """Each backend family brings its own index; the PostgreSQL one registers here too."""
    from ..store.sqlite import SQLiteBackend

    if isinstance(backend, SQLiteBackend):
        from ..store.sqlite.search import SQLiteSearch

        return SQLiteSearch(backend)
    factory = getattr(backend, "search_index", None)
    if callable(factory):
        index: SearchIndex = factory()
        return index
    raise ValidationError("backend", type(backend).__name__, "has no search index")
