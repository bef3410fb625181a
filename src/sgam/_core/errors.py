"""The one exception hierarchy every sgam surface raises and maps.

    SgamError
    ├── ValidationError (also ValueError)   bad shape, type, timestamp or size
    │   └── InvalidFields                   several fields of one request, each named
    ├── DeniedError                         consent for the subject (or purpose) is revoked
    ├── ForbiddenError                      the caller's key scope does not allow the call
    ├── NotFoundError (also LookupError)    unknown episode, target or tenant object
    ├── ConflictError                       would overwrite or contradict stored state
    │   └── ActionInDoubt                   an action's call began but its outcome is unknown
    ├── StoreError                          the database could not do its part
    │   ├── BusyError                       still locked after every retry
    │   ├── UnsafeDatabaseError             a connection that could bypass isolation
    │   └── SchemaVersionError              database newer than this code
    └── ModelError                          the model could not be asked or did not answer

Each error carries a stable ``kind`` string; the CLI turns it into an exit status and
replay scenarios name it in ``error:``.
"""

from __future__ import annotations

import reprlib
from typing import Any

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 60, 60
_SHOWN.maxdict = _SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxset = _SHOWN.maxfrozenset = 4
SHOWN_LENGTH = 80


def bounded_repr(value: Any) -> str:
    """A bounded repr for messages: untrusted input may be huge, deeply nested, or have a
    ``__repr__`` that fails, and an error message must never fail or grow with it."""
    try:
        text = _SHOWN.repr(value)
    except Exception:  # noqa: BLE001 - a value's own __repr__ raised (recursion included)
        text = f"<{type(value).__name__}>"
    return text if len(text) <= SHOWN_LENGTH else text[: SHOWN_LENGTH - 3] + "..."


class SgamError(Exception):
    """Root of every error sgam raises on purpose."""

    kind = "error"

    def __init__(self, message: str, *, field: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.value = value

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.field is not None:
            data["field"] = self.field
        return data


class ValidationError(SgamError, ValueError):
    """A value broke a rule of the schema or the API; nothing was written."""

    kind = "validation"

    def __init__(self, field: str, value: Any, rule: str) -> None:
        super().__init__(f"{field}: {rule} (got {bounded_repr(value)})", field=field, value=value)
        self.rule = rule


class InvalidFields(ValidationError):
    """Several fields of one request broke their rules at once. Each is named with what
    was wrong, so a caller fixes them all in one retry; ``field`` is the first."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        field, rule = problems[0]
        SgamError.__init__(self, "; ".join(f"{name}: {text}" for name, text in problems), field=field)
        self.rule = rule
        self.problems = problems


class DeniedError(SgamError):
    """Consent for the subject (for every purpose, or the one named) is revoked; nothing
    about it may be written or read until it is granted again."""

    kind = "denied"


class ForbiddenError(SgamError):
    """The key is valid but its scope does not allow the call (HTTP 403)."""

    kind = "forbidden"


class NotFoundError(SgamError, LookupError):
    """The episode, assertion or target named by the call does not exist in the tenant."""

    kind = "not_found"


class ConflictError(SgamError):
    """The call contradicts stored state and sgam refuses to overwrite it silently."""

    kind = "conflict"


class ActionInDoubt(ConflictError):
    """An action's intent was recorded but not its outcome (a crash mid-call, or a call
    still running elsewhere): calling again could repeat it, so a person (or a
    ``reconcile`` that asks the destination) must decide."""

    kind = "action_in_doubt"


class AuthenticationError(SgamError):
    """No API key, or one that is malformed, unknown or revoked (HTTP 401)."""

    kind = "unauthenticated"


class StoreError(SgamError):
    """The database failed in a way the caller cannot fix by changing the call."""

    kind = "store"


class BusyError(StoreError):
    """The database stayed locked (or kept failing serialisation) after every retry."""

    kind = "busy"


class UnsafeDatabaseError(StoreError):
    """The connection could read or write across tenants (superuser, owner, BYPASSRLS)."""

    kind = "unsafe_database"


class SchemaVersionError(StoreError):
    """The database schema is newer than this version of sgam understands, or a migration
    it applied differs from this sgam's (its recorded checksum does not match)."""

    kind = "schema_version"


class ModelError(SgamError):
    """The model could not be asked or did not answer usably (timeout, HTTP error, no
    configuration). The episode is kept; the extraction can be retried."""

    kind = "model"


ERROR_KINDS: tuple[type[SgamError], ...] = (
    ValidationError,
    DeniedError,
    NotFoundError,
    ConflictError,
    ActionInDoubt,
    StoreError,
    BusyError,
    UnsafeDatabaseError,
    SchemaVersionError,
    ModelError,
)
