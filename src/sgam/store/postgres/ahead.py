"""The statement that answers each read a read scope names before making it
(``Reader.prefetch``): built by the same function the read itself uses, so the statement
sent ahead is the one the read would send, and the read takes its rows by the request
(``PostgresSession.answer``), never by comparing statement texts."""

from __future__ import annotations

from typing import Any, assert_never

from .._requests import (
    AttributeMeaning,
    AttributeSchemas,
    Consents,
    Declared,
    EmbedderState,
    Holding,
    KeywordChunks,
    KeywordEpisodes,
    MatchingKeys,
    Members,
    ReadAhead,
    RevokingConsents,
    SubjectMeaning,
    UnfinishedBackfills,
    VectorTally,
)
from .._sql.embedders import STATE
from .._sql.ledger import get_statement, members_statement, schemas_statement
from .._sql.lifecycle import consents_statement, revoking_statement
from .._sql.subjects import meaning_statement, unfinished_statement
from .session import PostgresSession


def statement(session: PostgresSession, tenant: str, request: ReadAhead) -> tuple[str, tuple[Any, ...]] | None:
    """The statement answering ``request`` in ``tenant``'s read, or None when that read
    asks the server nothing (no words to match; vectors ranked by the server)."""
    if isinstance(request, EmbedderState):
        return STATE, (tenant,)
    if isinstance(request, AttributeSchemas):
        return schemas_statement(tenant)
    if isinstance(request, Declared):
        return schemas_statement(tenant, request.attribute)
    if isinstance(request, SubjectMeaning | AttributeMeaning):
        return meaning_statement(session, tenant, request)
    if isinstance(request, Holding):
        return get_statement(session, tenant, request)
    if isinstance(request, UnfinishedBackfills):
        return unfinished_statement(tenant)
    if isinstance(request, Consents):
        return consents_statement(tenant, request.subject)
    if isinstance(request, RevokingConsents):
        return revoking_statement(session, tenant, request.uses)
    if isinstance(request, Members):
        return members_statement(session, tenant, request)
    # The search and documents modules are imported by the code that names their reads
    # (the backend itself loads them only when asked for them).
    if isinstance(request, MatchingKeys):
        from . import search

        return search.matching_keys_statement(session, tenant, request) if request.terms else None
    if isinstance(request, VectorTally):
        from . import search

        return search.tally_statement(tenant, request) if search.VECTORS_IN_PROCESS else None
    if isinstance(request, KeywordEpisodes):
        from . import search

        return search.keyword_episodes_statement(tenant, request) if request.terms else None
    if isinstance(request, KeywordChunks):
        from .documents import keyword_chunks_statement

        return keyword_chunks_statement(tenant, request) if request.terms else None
    assert_never(request)
