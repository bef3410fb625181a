"""Documents as the library returns them, and the rows backends store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Document:
    """The current revision of a document; ``content`` is its full text."""

    tenant: str
    path: str
    revision: int
    content: str
    size: int
    retention: str
    source: str | None
    reviewed_at: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Revision:
    """One change of a document: what it held after the change, and who made it.

    ``content`` is None for a deletion. ``author`` names who or what wrote it (a user, the
    memory tool, an import); ``episode`` and ``call`` tie it to the episode or tool call."""

    path: str
    revision: int
    op: str
    content: str | None
    author: str | None
    episode: str | None
    call: str | None
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a directory listing: a file (its size in bytes) or a directory (the
    bytes of the files below it)."""

    path: str
    is_dir: bool
    size: int


@dataclass(frozen=True, slots=True)
class DocumentHit:
    """A passage of a document found by search: cite it by path, revision and lines."""

    path: str
    revision: int
    start_line: int
    end_line: int
    text: str
    score: float
