"""FTS5 query text built from search terms."""

from __future__ import annotations

from collections.abc import Sequence


def fts_query(terms: Sequence[str], *, every: bool = False) -> str:
    """Any of the terms (each of them with ``every``); each quoted so FTS5 syntax in user
    text is never interpreted."""
    return (" AND " if every else " OR ").join('"' + term.replace('"', "") + '"' for term in terms)
