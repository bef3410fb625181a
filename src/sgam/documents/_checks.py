"""Checks and conversions shared by the document service and its surfaces."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._core.errors import ConflictError, NotFoundError, ValidationError
from .._core.time import from_micros
from .._core.values import check_integer, check_optional_name
from ..store import DocumentRow, RevisionRow
from ._model import Document, Revision

DEFAULT_RETENTION = "default"
_RETENTION = re.compile(r"[a-z][a-z0-9_-]{0,63}")  # fullmatch: ``$`` matches before a final newline


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who or what writes a revision, and from which episode or tool call."""

    author: str | None = None
    episode: str | None = None
    call: str | None = None

    def checked(self) -> Provenance:
        return Provenance(check_optional_name(self.author, "author"), check_optional_name(self.episode, "episode"),
                          check_optional_name(self.call, "call"))


ANONYMOUS = Provenance()
"""No author, episode or call recorded."""


@dataclass(frozen=True, slots=True)
class Edit:
    """A ``str_replace`` result: the document and the 0-based line where the change starts."""

    document: Document
    line: int


def check_retention(value: object) -> str:
    if not isinstance(value, str) or not _RETENTION.fullmatch(value):
        raise ValidationError("retention", value, "must be a retention class name (a-z, 0-9, _ and -, 1-64)")
    return value


def check_expected(value: object) -> int | None:
    if value is None:
        return None
    return check_integer(value, "expected_revision", 0, "must be a revision number (0: must not exist yet)")


def not_found(path: str) -> NotFoundError:
    return NotFoundError(f"The path {path} does not exist. Please provide a valid path.", field="path", value=path)


def to_document(tenant: str, row: DocumentRow) -> Document:
    assert row.content is not None
    return Document(tenant, row.path, row.revision, row.content, row.size, row.retention, row.source,
                    None if row.reviewed_at is None else from_micros(row.reviewed_at),
                    from_micros(row.created_at), from_micros(row.updated_at))


def to_revision(row: RevisionRow) -> Revision:
    return Revision(row.path, row.revision, row.op, row.content, row.author, row.episode, row.call_id,
                    from_micros(row.recorded_at))


def check_revision(row: DocumentRow, expected: int | None) -> None:
    if expected is not None and row.revision != expected:
        raise ConflictError(
            f"{row.path} is at revision {row.revision}, not {expected}: it changed since it was read",
            field="expected_revision", value=expected,
        )


def revision_number(value: object) -> int:
    return check_integer(value, "revision", 1, "must be a revision number (1 or more)")


def tool_error(field: str, value: object, text: str) -> ValidationError:
    """A validation error whose message is exactly the memory tool's error text."""
    error = ValidationError(field, value, text)
    error.message = text
    error.args = (text,)
    return error
