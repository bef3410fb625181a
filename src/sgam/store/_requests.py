"""Fast paths as requests: what a call will ask the store, named before it asks.

A backend that pays a round trip per statement sends the statement answering a request
ahead, in the same pipeline as what it sends next (PostgreSQL: a read's statements, a
one-fact write's lookups); a backend whose statements are
function calls into the same process answers each question with its own statement when
it is asked. Either way the answers are the ones the portable reads give: a request only
says what is coming, never how it is stored, and a read asked with other arguments than
a request named asks its own statement.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OneFactWrite:
    """A unit of work of one operation on (``subject``, ``attribute``) at ``moment`` citing
    ``source``: the key's lock, the tenant's schema version, the source episode, the
    key's last change, its versions around ``moment``, the subject's consent statements
    and what its name means now."""

    subject: str
    attribute: str
    moment: int
    source: str


# Reads a read scope will make first (``Reader.prefetch``): each names one read of the
# ``Reader`` (or of a capability reached from it) with the arguments it will be asked with.
# A backend with round trips sends each one's statement ahead and answers the read, when
# it comes, from what came back; the read builds that statement with the same function.


@dataclass(frozen=True, slots=True)
class EmbedderState:
    """``SearchIndex.embedder_state`` of the read: which embedder the tenant's search uses."""


@dataclass(frozen=True, slots=True)
class AttributeSchemas:
    """``Reader.attribute_schemas()``: every declared attribute of the tenant."""


@dataclass(frozen=True, slots=True)
class Declared:
    """``Reader.declared(attribute)``."""

    attribute: str


@dataclass(frozen=True, slots=True)
class SubjectMeaning:
    """``Reader.resolve_subject(name, known_at)``."""

    name: str
    known_at: int | None


@dataclass(frozen=True, slots=True)
class AttributeMeaning:
    """``Reader.resolve_attribute(name, known_at)``."""

    name: str
    known_at: int | None


@dataclass(frozen=True, slots=True)
class Holding:
    """``Reader.get(subject, attribute, at, known_at)``: the version of a key holding at
    ``at`` as known at ``known_at``."""

    subject: str
    attribute: str
    at: int
    known_at: int | None


@dataclass(frozen=True, slots=True)
class UnfinishedBackfills:
    """``Reader.unfinished_backfills()``: every read asks, to convert what a backfill has
    not reached yet."""


@dataclass(frozen=True, slots=True)
class Consents:
    """``Reader.consents(subject)``: the statements about ``subject`` under every name."""

    subject: str


@dataclass(frozen=True, slots=True)
class RevokingConsents:
    """``Reader.revoking_consents(uses)``."""

    uses: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Members:
    """``Reader.members(subject, prefix, at, known_at)``: a set's members."""

    subject: str
    prefix: str
    at: int
    known_at: int | None


@dataclass(frozen=True, slots=True)
class MatchingKeys:
    """``SearchIndex.matching_keys(reader, terms, at, limit, known_at)``."""

    terms: tuple[str, ...]
    at: int
    limit: int
    known_at: int | None


@dataclass(frozen=True, slots=True)
class VectorTally:
    """The tally of the tenant's episode vectors of ``model`` and ``dims`` that an evidence
    search checks its process's copy of the vectors against."""

    model: str
    dims: int


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Scope of an evidence search beyond the tenant. Times are epoch microseconds;
    ``subject``/``memory_type`` keep episodes that sourced such an operation."""

    since: int | None = None
    until: int | None = None
    session: str | None = None
    speaker: str | None = None
    subject: str | None = None
    memory_type: str | None = None
    known_at: int | None = None
    """Only episodes recorded at or before this transaction time (a reproducible read)."""

    @property
    def on_times_only(self) -> bool:
        """Whether the filter names times alone (what each vector row holds itself)."""
        return self.session is None and self.speaker is None and self.subject is None and self.memory_type is None


@dataclass(frozen=True, slots=True)
class KeywordEpisodes:
    """An evidence search's keyword candidates (``SearchIndex.candidate_episodes``): the
    ``limit`` best episodes for ``terms`` within ``flt``, with their rows."""

    terms: tuple[str, ...]
    limit: int
    flt: SearchFilter


@dataclass(frozen=True, slots=True)
class KeywordChunks:
    """``DocumentStore.keyword_chunks(terms, limit)`` of the read's documents."""

    terms: tuple[str, ...]
    limit: int


ReadAhead = (EmbedderState | AttributeSchemas | Declared | SubjectMeaning | AttributeMeaning | Holding
             | UnfinishedBackfills | Consents | RevokingConsents | Members | MatchingKeys | VectorTally
             | KeywordEpisodes | KeywordChunks)
"""A read named before it is made (``Reader.prefetch``)."""
